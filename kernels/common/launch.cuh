// Launch-shape helpers shared by the kernel families (CUDA C, .cu files only).
#ifndef KERNELS_COMMON_LAUNCH_CUH
#define KERNELS_COMMON_LAUNCH_CUH

#include <stddef.h>
#include <stdint.h>
#include <cuda_runtime.h>

// Blocks needed to give each of `work` items one thread, capped at the
// device's grid limit (kernels use grid-stride loops, so a cap stays correct).
static inline cudaError_t grid_for(size_t work, unsigned block, unsigned *grid) {
  int dev = 0, max_x = 0;
  cudaError_t err = cudaGetDevice(&dev);
  if (err == cudaSuccess) err = cudaDeviceGetAttribute(&max_x, cudaDevAttrMaxGridDimX, dev);
  if (err != cudaSuccess) return err;
  size_t blocks = (work + block - 1) / block;
  if (blocks < 1) blocks = 1;
  if (blocks > (size_t)max_x) blocks = (size_t)max_x;
  *grid = (unsigned)blocks;
  return cudaSuccess;
}

// Blocks that fill the device once: SMs x resident blocks per SM for `kernel`.
template <typename Kernel>
static inline cudaError_t grid_fill_device(Kernel kernel, unsigned block, size_t smem, unsigned *grid) {
  int dev = 0, sms = 0, per_sm = 0;
  cudaError_t err = cudaGetDevice(&dev);
  if (err == cudaSuccess) err = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);
  if (err == cudaSuccess) err = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, (int)block, smem);
  if (err != cudaSuccess) return err;
  *grid = (unsigned)(sms * (per_sm > 0 ? per_sm : 1));
  return cudaSuccess;
}

static inline int is_aligned(const void *p, size_t bytes) { return ((uintptr_t)p % bytes) == 0; }

#endif
