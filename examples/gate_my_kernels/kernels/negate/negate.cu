// y = -x, one float per thread and step of a grid-stride loop.
#include "kernels/negate/negate.h"
#include "kernels/common/launch.cuh"  // from the suite: grid_for, is_aligned

static __global__ void negate_kernel(const float *x, float *y, size_t n) {
  size_t stride = (size_t)gridDim.x * blockDim.x;
  for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) y[i] = -x[i];
}

extern "C" cudaError_t negate(const float *x, float *y, size_t n, cudaStream_t stream) {
  if (n == 0) return cudaSuccess;
  if (!x || !y) return cudaErrorInvalidValue;
  unsigned grid;
  cudaError_t err = grid_for(n, 256, &grid);
  if (err != cudaSuccess) return err;
  negate_kernel<<<grid, 256, 0, stream>>>(x, y, n);
  return cudaGetLastError();
}
