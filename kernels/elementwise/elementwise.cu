// Element-wise add and SAXPY (scalar and float4 each); the cuBLAS saxpy library reference
// is in elementwise_cublas.cu.
#include "kernels/elementwise/elementwise.h"
#include "kernels/common/launch.cuh"
#include "kernels/common/slowdown.cuh"

static const unsigned kBlock = 256;

// Injected slowdowns (kernels/common/slowdown.cuh): add_float4 is an injection point.
SLOWDOWN_REPORT(ew_injected_slowdown)

static __global__ void add_kernel(const float *a, const float *b, float *c, size_t n) {
  size_t stride = (size_t)gridDim.x * blockDim.x;
  for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) c[i] = a[i] + b[i];
}

// a, b, c point at the first 16-byte-aligned element; `nvec` float4s follow.
// The `head` elements before them and the `tail` after are done by the first threads.
static __global__ void add_float4_kernel(const float *a, const float *b, float *c, size_t head, size_t nvec,
                                         size_t tail) {
  size_t tid = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  size_t stride = (size_t)gridDim.x * blockDim.x;
  const float4 *a4 = (const float4 *)(a + head);
  const float4 *b4 = (const float4 *)(b + head);
  float4 *c4 = (float4 *)(c + head);
#if SLOWDOWN_WORK_PCT > 0
  // Injected slowdown (gate testing only): PCT% more work items, handled by the
  // last blocks, recompute the first vectors, long evicted from L2 by then for
  // arrays beyond L2: PCT% more DRAM bytes in the same launch, nothing else changes.
  for (size_t w = tid; w < slowdown_work(nvec); w += stride) {
    size_t i = w < nvec ? w : w - nvec;
#else
  for (size_t i = tid; i < nvec; i += stride) {
#endif
    float4 x = a4[i], y = b4[i];
    c4[i] = make_float4(x.x + y.x, x.y + y.y, x.z + y.z, x.w + y.w);
  }
  if (tid < head) c[tid] = a[tid] + b[tid];
  if (tid < tail) {
    size_t t = head + 4 * nvec + tid;
    c[t] = a[t] + b[t];
  }
}

static __global__ void saxpy_kernel(float alpha, const float *x, float *y, size_t n) {
  size_t stride = (size_t)gridDim.x * blockDim.x;
  for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) y[i] = alpha * x[i] + y[i];
}

// As add_float4_kernel: x + head and y + head are 16-byte aligned and `nvec`
// float4s follow; the `head` elements before them and the `tail` after are done
// by the first threads. x may equal y (each element is read and written by one thread).
static __global__ void saxpy_float4_kernel(float alpha, const float *x, float *y, size_t head, size_t nvec,
                                           size_t tail) {
  size_t tid = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  size_t stride = (size_t)gridDim.x * blockDim.x;
  const float4 *x4 = (const float4 *)(x + head);
  float4 *y4 = (float4 *)(y + head);
  for (size_t i = tid; i < nvec; i += stride) {
    float4 a = x4[i], b = y4[i];
    y4[i] = make_float4(alpha * a.x + b.x, alpha * a.y + b.y, alpha * a.z + b.z, alpha * a.w + b.w);
  }
  if (tid < head) y[tid] = alpha * x[tid] + y[tid];
  if (tid < tail) {
    size_t t = head + 4 * nvec + tid;
    y[t] = alpha * x[t] + y[t];
  }
}

static cudaError_t check_args(const float *p, const float *q, const float *r, size_t n) {
  if (n == 0) return cudaSuccess;
  if (!p || !q || !r) return cudaErrorInvalidValue;
  if (!is_aligned(p, sizeof(float)) || !is_aligned(q, sizeof(float)) || !is_aligned(r, sizeof(float)))
    return cudaErrorMisalignedAddress;
  return cudaSuccess;
}

extern "C" cudaError_t ew_add(const float *a, const float *b, float *c, size_t n, cudaStream_t stream) {
  cudaError_t err = check_args(a, b, c, n);
  if (err != cudaSuccess || n == 0) return err;
  unsigned grid;
  if ((err = grid_for(n, kBlock, &grid)) != cudaSuccess) return err;
  add_kernel<<<grid, kBlock, 0, stream>>>(a, b, c, n);
  return cudaGetLastError();
}

extern "C" cudaError_t ew_add_float4(const float *a, const float *b, float *c, size_t n, cudaStream_t stream) {
  cudaError_t err = check_args(a, b, c, n);
  if (err != cudaSuccess || n == 0) return err;
  // Elements before c reaches a 16-byte boundary (0..3).
  size_t head = ((16 - (uintptr_t)c % 16) % 16) / sizeof(float);
  if (head > n) head = n;
  if (!is_aligned(a + head, 16) || !is_aligned(b + head, 16)) return ew_add(a, b, c, n, stream);
  size_t nvec = (n - head) / 4;
  size_t tail = n - head - 4 * nvec;
  unsigned grid;
  size_t work = slowdown_work(nvec); /* == nvec unless slowed on purpose */
  if ((err = grid_for(work > 4 ? work : 4, kBlock, &grid)) != cudaSuccess) return err;
  if ((err = slowdown_extra_launch(a + head, nvec, stream)) != cudaSuccess) return err;
  add_float4_kernel<<<slowdown_grid(grid), kBlock, 0, stream>>>(a, b, c, head, nvec, tail);
  return cudaGetLastError();
}

extern "C" cudaError_t ew_saxpy(float alpha, const float *x, float *y, size_t n, cudaStream_t stream) {
  cudaError_t err = check_args(x, y, y, n);
  if (err != cudaSuccess || n == 0) return err;
  unsigned grid;
  if ((err = grid_for(n, kBlock, &grid)) != cudaSuccess) return err;
  saxpy_kernel<<<grid, kBlock, 0, stream>>>(alpha, x, y, n);
  return cudaGetLastError();
}

extern "C" cudaError_t ew_saxpy_float4(float alpha, const float *x, float *y, size_t n, cudaStream_t stream) {
  cudaError_t err = check_args(x, y, y, n);
  if (err != cudaSuccess || n == 0) return err;
  // Elements before y reaches a 16-byte boundary (0..3); x must reach one at the same index.
  size_t head = ((16 - (uintptr_t)y % 16) % 16) / sizeof(float);
  if (head > n) head = n;
  if (!is_aligned(x + head, 16)) return ew_saxpy(alpha, x, y, n, stream);
  size_t nvec = (n - head) / 4;
  size_t tail = n - head - 4 * nvec;
  unsigned grid;
  if ((err = grid_for(nvec > 4 ? nvec : 4, kBlock, &grid)) != cudaSuccess) return err;
  saxpy_float4_kernel<<<grid, kBlock, 0, stream>>>(alpha, x, y, head, nvec, tail);
  return cudaGetLastError();
}
