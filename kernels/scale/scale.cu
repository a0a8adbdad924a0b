// y = a * x: a scalar kernel and a float4 one.
#include "kernels/scale/scale.h"
#include "kernels/common/launch.cuh"

static const unsigned kBlock = 256;

static __global__ void scale_kernel(float a, const float *x, float *y, size_t n) {
  size_t stride = (size_t)gridDim.x * blockDim.x;
  for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) y[i] = a * x[i];
}

// `nvec` float4s start at element `head`, the first 16-byte-aligned element of y (and of x); the
// `head` elements before them and the `tail` after are done by the first threads of the grid.
static __global__ void scale_float4_kernel(float a, const float *x, float *y, size_t head, size_t nvec, size_t tail) {
  size_t tid = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  size_t stride = (size_t)gridDim.x * blockDim.x;
  const float4 *x4 = (const float4 *)(x + head);
  float4 *y4 = (float4 *)(y + head);
  for (size_t i = tid; i < nvec; i += stride) {
    float4 v = x4[i];
    y4[i] = make_float4(a * v.x, a * v.y, a * v.z, a * v.w);
  }
  if (tid < head) y[tid] = a * x[tid];
  if (tid < tail) {
    size_t t = head + 4 * nvec + tid;
    y[t] = a * x[t];
  }
}

static cudaError_t check_args(const float *x, const float *y, size_t n) {
  if (n == 0) return cudaSuccess;
  if (!x || !y) return cudaErrorInvalidValue;
  if (!is_aligned(x, sizeof(float)) || !is_aligned(y, sizeof(float))) return cudaErrorMisalignedAddress;
  return cudaSuccess;
}

extern "C" cudaError_t scale(float a, const float *x, float *y, size_t n, cudaStream_t stream) {
  cudaError_t err = check_args(x, y, n);
  if (err != cudaSuccess || n == 0) return err;
  unsigned grid;
  if ((err = grid_for(n, kBlock, &grid)) != cudaSuccess) return err;
  scale_kernel<<<grid, kBlock, 0, stream>>>(a, x, y, n);
  return cudaGetLastError();
}

extern "C" cudaError_t scale_float4(float a, const float *x, float *y, size_t n, cudaStream_t stream) {
  cudaError_t err = check_args(x, y, n);
  if (err != cudaSuccess || n == 0) return err;
  // Elements before y reaches a 16-byte boundary (0..3).
  size_t head = ((16 - (uintptr_t)y % 16) % 16) / sizeof(float);
  if (head > n) head = n;
  if (!is_aligned(x + head, 16)) return scale(a, x, y, n, stream);
  size_t nvec = (n - head) / 4;
  size_t tail = n - head - 4 * nvec;
  unsigned grid;
  // At least 4 threads so that head (< 4) and tail (< 4) always have a thread.
  if ((err = grid_for(nvec > 4 ? nvec : 4, kBlock, &grid)) != cudaSuccess) return err;
  scale_float4_kernel<<<grid, kBlock, 0, stream>>>(a, x, y, head, nvec, tail);
  return cudaGetLastError();
}

// The grid-stride loop on a grid that fills the device once, instead of one thread per element.
extern "C" cudaError_t scale_device_fill(float a, const float *x, float *y, size_t n, cudaStream_t stream) {
  cudaError_t err = check_args(x, y, n);
  if (err != cudaSuccess || n == 0) return err;
  unsigned grid;
  if ((err = grid_fill_device(scale_kernel, kBlock, 0, &grid)) != cudaSuccess) return err;
  scale_kernel<<<grid, kBlock, 0, stream>>>(a, x, y, n);
  return cudaGetLastError();
}
