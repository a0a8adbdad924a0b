// Float dot product: classic tree (host or atomic finish), one-launch float4
// kernel, and cuBLAS sdot behind the same C API.
#include <stdint.h>

#include <cublas_v2.h>

#include "kernels/common/context_cache.h"
#include "kernels/common/launch.cuh"
#include "kernels/dot/dot.h"
#include "kernels/reduce/block_sum.cuh"

static const unsigned kBlock = DOT_BLOCK;
static_assert((kBlock & (kBlock - 1)) == 0 && kBlock % 32 == 0, "the tree needs a power-of-two block");

// A block's total as tree_host_finish's kernel writes it into the host's page-locked scratch: the value,
// then, after a system-wide fence, the number of the call it belongs to. The host takes a value once its
// call number is the current one, so a total left there by an earlier call is never read as this one's.
struct block_total {
  float value;
  unsigned call;
};
struct host_finish_scratch {
  unsigned calls; // the number of the last call made with this scratch (0: none yet; the scratch starts zeroed)
  unsigned unused;
  block_total totals[DOT_MAX_PARTIALS];
};
static_assert(sizeof(host_finish_scratch) <= CONTEXT_SCRATCH_BYTES, "the block totals fit the host scratch");

static size_t ceil_div(size_t a, size_t b) { return (a + b - 1) / b; }
static size_t min_size(size_t a, size_t b) { return a < b ? a : b; }

// The argument rules of dot.h; n == 0 is answered here with *d_result = 0.0f.
static cudaError_t check_args(const float *x, const float *y, size_t n, float *d_result, void *d_work,
                              cudaStream_t stream, bool *done) {
  *done = true;
  if (!d_result) return cudaErrorInvalidValue;
  if (!is_aligned(d_result, sizeof(float))) return cudaErrorMisalignedAddress;
  if (n == 0) return cudaMemsetAsync(d_result, 0, sizeof(float), stream); // 0.0f is all zero bits
  if (!x || !y || !d_work) return cudaErrorInvalidValue;
  if (!is_aligned(x, sizeof(float)) || !is_aligned(y, sizeof(float)) || !is_aligned(d_work, 16))
    return cudaErrorMisalignedAddress;
  *done = false;
  return cudaSuccess;
}

// ---------------------------------------------------------------------------
// Classic: each thread sums products over a grid-stride loop, then the block
// folds its B sums in shared memory (sequential addressing). The total is
// returned in thread 0.

static __device__ __forceinline__ float tree_block_dot(const float *x, const float *y, size_t n) {
  __shared__ float s[kBlock];
  const unsigned tid = threadIdx.x;
  float v = 0.0f;
  for (size_t i = (size_t)blockIdx.x * kBlock + tid; i < n; i += (size_t)gridDim.x * kBlock) v += x[i] * y[i];
  s[tid] = v;
  __syncthreads();
  for (unsigned stride = kBlock / 2; stride > 0; stride >>= 1) {
    if (tid < stride) s[tid] += s[tid + stride];
    __syncthreads();
  }
  return s[0];
}

static __global__ void __launch_bounds__(kBlock)
    tree_totals_to_host_kernel(const float *x, const float *y, size_t n, volatile block_total *totals, unsigned call) {
  float v = tree_block_dot(x, y, n);
  if (threadIdx.x == 0) {
    totals[blockIdx.x].value = v;
    __threadfence_system(); // the value reaches the host before the call number that vouches for it
    totals[blockIdx.x].call = call;
  }
}

static __global__ void __launch_bounds__(kBlock)
    tree_atomic_kernel(const float *x, const float *y, size_t n, float *out) {
  float v = tree_block_dot(x, y, n);
  if (threadIdx.x == 0) atomicAdd(out, v);
}

// One block per B elements, at most one device fill, at most DOT_MAX_PARTIALS.
template <typename Kernel>
static cudaError_t tree_grid(Kernel kernel, size_t n, unsigned *grid) {
  unsigned fill;
  cudaError_t err = grid_fill_device(kernel, kBlock, 0, &fill);
  if (err == cudaSuccess) *grid = (unsigned)min_size(min_size(fill, ceil_div(n, kBlock)), DOT_MAX_PARTIALS);
  return err;
}

static __global__ void store_kernel(float *out, float value) { *out = value; }

// The host waits for every block's total in turn, spinning on its call number. It asks the stream now and
// then, so that a failed kernel ends the wait with its error instead of a hang.
static cudaError_t wait_and_sum_totals(const host_finish_scratch *s, unsigned grid, unsigned call, cudaStream_t stream,
                                       double *total) {
  double sum = 0.0; // the host step: exact enough that only the final rounding to float counts
  for (unsigned i = 0; i < grid; i++) {
    for (unsigned long spins = 1; __atomic_load_n(&s->totals[i].call, __ATOMIC_ACQUIRE) != call; spins++) {
      if (spins % 4096) continue;
      cudaError_t err = cudaStreamQuery(stream);
      if (err == cudaErrorNotReady) continue;
      if (err != cudaSuccess) return err;
      // The stream is idle, so the kernel has finished and every total it wrote is visible here.
      if (__atomic_load_n(&s->totals[i].call, __ATOMIC_ACQUIRE) != call) return cudaErrorUnknown;
    }
    sum += *(const volatile float *)&s->totals[i].value;
  }
  *total = sum;
  return cudaSuccess;
}

extern "C" cudaError_t dot_tree_host_finish(const float *x, const float *y, size_t n, float *d_result, void *d_work,
                                            cudaStream_t stream) {
  bool done;
  cudaError_t err = check_args(x, y, n, d_result, d_work, stream, &done);
  if (err != cudaSuccess || done) return err;
  unsigned grid;
  if ((err = tree_grid(tree_totals_to_host_kernel, n, &grid)) != cudaSuccess) return err;
  // The block totals go straight into mapped page-locked memory and the host waits on them there: no copy
  // to queue and no stream synchronisation. That took the variant at 2^20 from 26.3 to 22.0 us on the
  // H100s and from 23.6 to 19.1 us on the H200s (a copy into page-locked memory and
  // cudaStreamSynchronize before); its spread from one process to the next stayed (docs/RESULTS.md).
  host_finish_scratch *s;
  block_total *d_totals;
  if ((err = pinned_scratch_for_current_context(sizeof *s, (void **)&s)) != cudaSuccess ||
      (err = cudaHostGetDevicePointer((void **)&d_totals, s->totals, 0)) != cudaSuccess)
    return err;
  unsigned call = s->calls + 1 ? s->calls + 1 : 1; // 0 is the zeroed scratch's, never a call's
  s->calls = call;
  tree_totals_to_host_kernel<<<grid, kBlock, 0, stream>>>(x, y, n, d_totals, call);
  if ((err = cudaGetLastError()) != cudaSuccess) return err;
  double total;
  if ((err = wait_and_sum_totals(s, grid, call, stream, &total)) != cudaSuccess) return err;
  // The result goes back as a kernel argument: no second copy and no second wait on the host
  // (each host round trip added its own jitter to the timing).
  store_kernel<<<1, 1, 0, stream>>>(d_result, (float)total);
  return cudaGetLastError();
}

extern "C" cudaError_t dot_tree_atomic(const float *x, const float *y, size_t n, float *d_result, void *d_work,
                                       cudaStream_t stream) {
  bool done;
  cudaError_t err = check_args(x, y, n, d_result, d_work, stream, &done);
  if (err != cudaSuccess || done) return err;
  unsigned grid;
  if ((err = tree_grid(tree_atomic_kernel, n, &grid)) != cudaSuccess) return err;
  if ((err = cudaMemsetAsync(d_result, 0, sizeof(float), stream)) != cudaSuccess) return err;
  tree_atomic_kernel<<<grid, kBlock, 0, stream>>>(x, y, n, d_result);
  return cudaGetLastError();
}

// ---------------------------------------------------------------------------
// Optimised: 16-byte read-only loads of both arrays, four pairs in flight per
// thread, a grid that fills the device (grid-stride beyond it), shuffle trees,
// and the last block to finish writes the result.

static const unsigned kUnroll = 4; // float4 pairs in flight per thread

static __device__ __forceinline__ float dot4(float4 a, float4 b) {
  return (a.x * b.x + a.y * b.y) + (a.z * b.z + a.w * b.w);
}

// x + head and y + head are 16-byte aligned; nvec float4s follow. Elements
// [0, head) and [head + 4 nvec, n) take a scalar grid-stride loop: fewer than
// 4 each when x and y share an alignment, all n when they do not (head == n).
static __global__ void __launch_bounds__(kBlock)
    vec4_kernel(const float *x, const float *y, size_t n, size_t head, size_t nvec, float *partials, unsigned *counter,
                float *out) {
  const float4 *x4 = (const float4 *)(x + head), *y4 = (const float4 *)(y + head);
  const size_t tid = (size_t)blockIdx.x * kBlock + threadIdx.x, stride = (size_t)gridDim.x * kBlock;
  float v = 0.0f;
  size_t i = tid;
  for (; i + (kUnroll - 1) * stride < nvec; i += kUnroll * stride) {
    float4 a0 = __ldg(x4 + i), a1 = __ldg(x4 + i + stride), a2 = __ldg(x4 + i + 2 * stride),
           a3 = __ldg(x4 + i + 3 * stride);
    float4 b0 = __ldg(y4 + i), b1 = __ldg(y4 + i + stride), b2 = __ldg(y4 + i + 2 * stride),
           b3 = __ldg(y4 + i + 3 * stride);
    v += (dot4(a0, b0) + dot4(a1, b1)) + (dot4(a2, b2) + dot4(a3, b3));
  }
  for (; i < nvec; i += stride) v += dot4(__ldg(x4 + i), __ldg(y4 + i));
  for (size_t j = tid; j < head; j += stride) v += x[j] * y[j];
  for (size_t j = head + 4 * nvec + tid; j < n; j += stride) v += x[j] * y[j];
  v = block_sum<kBlock>(v);
  last_block_finish<kBlock>(v, partials, counter, out);
}

extern "C" cudaError_t dot_shuffle_vec4(const float *x, const float *y, size_t n, float *d_result, void *d_work,
                                        cudaStream_t stream) {
  bool done;
  cudaError_t err = check_args(x, y, n, d_result, d_work, stream, &done);
  if (err != cudaSuccess || done) return err;
  const bool shared_alignment = (uintptr_t)x % 16 == (uintptr_t)y % 16;
  size_t head = shared_alignment ? min_size(((16 - (uintptr_t)x % 16) % 16) / sizeof(float), n) : n;
  size_t nvec = (n - head) / 4;
  unsigned fill;
  if ((err = grid_fill_device(vec4_kernel, kBlock, 0, &fill)) != cudaSuccess) return err;
  size_t work_blocks = ceil_div(shared_alignment ? nvec : n, kBlock * kUnroll);
  unsigned grid = (unsigned)min_size(min_size(fill, work_blocks > 0 ? work_blocks : 1), DOT_MAX_PARTIALS);
  unsigned *counter = (unsigned *)d_work;
  float *partials = (float *)d_work + 4; // after the counter's 16 bytes
  if ((err = cudaMemsetAsync(counter, 0, sizeof *counter, stream)) != cudaSuccess) return err;
  vec4_kernel<<<grid, kBlock, 0, stream>>>(x, y, n, head, nvec, partials, counter, d_result);
  return cudaGetLastError();
}

// ---------------------------------------------------------------------------
// Library reference: cuBLAS.

extern "C" cudaError_t dot_cublas(const float *x, const float *y, size_t n, float *d_result, void *d_work,
                                  cudaStream_t stream) {
  bool done;
  cudaError_t err = check_args(x, y, n, d_result, d_work, stream, &done);
  if (err != cudaSuccess || done) return err;
  // The result goes to device memory; default math, whatever sgemm left on the context's shared handle.
  cublasHandle_t h;
  if ((err = cublas_for_current_context(stream, CUBLAS_POINTER_MODE_DEVICE, CUBLAS_DEFAULT_MATH, &h)) != cudaSuccess)
    return err;
  if ((err = cublas_error(cublasSdot_64(h, (int64_t)n, x, 1, y, 1, d_result))) != cudaSuccess) return err;
  return cudaGetLastError();
}

extern "C" size_t dot_work_bytes(size_t n) {
  (void)n; // a block counter (16 bytes) and at most DOT_MAX_PARTIALS block totals, for any n
  return ceil_div((4 + DOT_MAX_PARTIALS) * sizeof(float), 256) * 256;
}
