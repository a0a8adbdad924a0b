// Float sum: the classic reduction ladder (v0..v6) and the one-launch v7.
#include <stdint.h>

#include "kernels/common/launch.cuh"
#include "kernels/common/slowdown.cuh"
#include "kernels/reduce/block_sum.cuh"
#include "kernels/reduce/reduce.h"
#include "kernels/reduce/reduce_internal.h"

// Injected slowdowns (kernels/common/slowdown.cuh): v7 is an injection point.
SLOWDOWN_REPORT(reduce_injected_slowdown)

static const unsigned kBlock = REDUCE_BLOCK;
static_assert(kBlock >= 64 && kBlock <= 1024 && (kBlock & (kBlock - 1)) == 0, "trees need a power of two >= 64");

static size_t ceil_div(size_t a, size_t b) { return (a + b - 1) / b; }
static size_t min_size(size_t a, size_t b) { return a < b ? a : b; }

// ---------------------------------------------------------------------------
// v0..v5: one pass turns every block's B (v3..v5: 2B) values into one total;
// passes repeat until one block is left. The classic kernels assume one block
// per block index; a block-stride loop over block indices keeps them correct
// where the grid is capped at the device limit. Out-of-range values load as 0.

static __global__ void v0_kernel(const float *in, size_t n, float *out) {
  extern __shared__ float s[];
  const unsigned tid = threadIdx.x;
  for (size_t b = blockIdx.x; b * blockDim.x < n; b += gridDim.x) {
    size_t i = b * blockDim.x + tid;
    s[tid] = i < n ? in[i] : 0.0f;
    __syncthreads();
    // Interleaved addressing: the active threads are every (2*stride)-th, chosen by %.
    for (unsigned stride = 1; stride < blockDim.x; stride *= 2) {
      if (tid % (2 * stride) == 0) s[tid] += s[tid + stride];
      __syncthreads();
    }
    if (tid == 0) out[b] = s[0];
    __syncthreads(); // s is refilled for the next block index
  }
}

static __global__ void v1_kernel(const float *in, size_t n, float *out) {
  extern __shared__ float s[];
  const unsigned tid = threadIdx.x;
  for (size_t b = blockIdx.x; b * blockDim.x < n; b += gridDim.x) {
    size_t i = b * blockDim.x + tid;
    s[tid] = i < n ? in[i] : 0.0f;
    __syncthreads();
    // Same pairs as v0, but thread t works on slot `index`: the active threads
    // are the first ones, not every (2*stride)-th. Both operands use `index`.
    for (unsigned stride = 1; stride < blockDim.x; stride *= 2) {
      unsigned index = 2 * stride * tid;
      if (index < blockDim.x) s[index] += s[index + stride];
      __syncthreads();
    }
    if (tid == 0) out[b] = s[0];
    __syncthreads();
  }
}

static __global__ void v2_kernel(const float *in, size_t n, float *out) {
  extern __shared__ float s[];
  const unsigned tid = threadIdx.x;
  for (size_t b = blockIdx.x; b * blockDim.x < n; b += gridDim.x) {
    size_t i = b * blockDim.x + tid;
    s[tid] = i < n ? in[i] : 0.0f;
    __syncthreads();
    // Sequential addressing: the upper half folds onto the lower half.
    for (unsigned stride = blockDim.x / 2; stride > 0; stride >>= 1) {
      if (tid < stride) s[tid] += s[tid + stride];
      __syncthreads();
    }
    if (tid == 0) out[b] = s[0];
    __syncthreads();
  }
}

// Each thread loads two values B apart and adds them: a block covers 2B values.
static __device__ __forceinline__ float load_pair(const float *in, size_t n, size_t b, unsigned block, unsigned tid) {
  size_t i = b * 2 * block + tid;
  float v = i < n ? in[i] : 0.0f;
  if (i + block < n) v += in[i + block];
  return v;
}

static __global__ void v3_kernel(const float *in, size_t n, float *out) {
  extern __shared__ float s[];
  const unsigned tid = threadIdx.x;
  for (size_t b = blockIdx.x; b * 2 * blockDim.x < n; b += gridDim.x) {
    s[tid] = load_pair(in, n, b, blockDim.x, tid);
    __syncthreads();
    for (unsigned stride = blockDim.x / 2; stride > 0; stride >>= 1) {
      if (tid < stride) s[tid] += s[tid + stride];
      __syncthreads();
    }
    if (tid == 0) out[b] = s[0];
    __syncthreads();
  }
}

// Warp 0 folds s[0..64) without block barriers; the total is returned in lane 0.
// Since Volta the lanes of a warp need not run in lockstep, so __syncwarp()
// puts every lane's reads of a step before any lane's write (the classic
// volatile-only version of this step is a race).
static __device__ __forceinline__ float last_warp(float *s, unsigned tid) {
  float v = s[tid];
#pragma unroll
  for (unsigned stride = 32; stride > 1; stride >>= 1) {
    v += s[tid + stride];
    __syncwarp();
    s[tid] = v;
    __syncwarp();
  }
  return v + s[tid + 1];
}

static __global__ void v4_kernel(const float *in, size_t n, float *out) {
  extern __shared__ float s[];
  const unsigned tid = threadIdx.x;
  for (size_t b = blockIdx.x; b * 2 * blockDim.x < n; b += gridDim.x) {
    s[tid] = load_pair(in, n, b, blockDim.x, tid);
    __syncthreads();
    for (unsigned stride = blockDim.x / 2; stride > 32; stride >>= 1) {
      if (tid < stride) s[tid] += s[tid + stride];
      __syncthreads();
    }
    if (tid < 32) {
      float v = last_warp(s, tid);
      if (tid == 0) out[b] = v;
    }
    __syncthreads(); // warp 0 still reads s[32..64) while other warps would refill it
  }
}

// The tree of v4 with the block size known at compile time: no loop, no dead steps.
template <unsigned B>
static __device__ __forceinline__ float tree_unrolled(float *s, unsigned tid) {
  static_assert(B >= 64 && B <= 1024 && (B & (B - 1)) == 0, "B must be a power of two in [64, 1024]");
  if (B >= 1024) {
    if (tid < 512) s[tid] += s[tid + 512];
    __syncthreads();
  }
  if (B >= 512) {
    if (tid < 256) s[tid] += s[tid + 256];
    __syncthreads();
  }
  if (B >= 256) {
    if (tid < 128) s[tid] += s[tid + 128];
    __syncthreads();
  }
  if (B >= 128) {
    if (tid < 64) s[tid] += s[tid + 64];
    __syncthreads();
  }
  return tid < 32 ? last_warp(s, tid) : 0.0f;
}

template <unsigned B>
static __global__ void __launch_bounds__(B) v5_kernel(const float *in, size_t n, float *out) {
  __shared__ float s[B];
  const unsigned tid = threadIdx.x;
  for (size_t b = blockIdx.x; b * 2 * B < n; b += gridDim.x) {
    s[tid] = load_pair(in, n, b, B, tid);
    __syncthreads();
    float v = tree_unrolled<B>(s, tid);
    if (tid == 0) out[b] = v;
    __syncthreads();
  }
}

typedef void (*pass_kernel)(const float *, size_t, float *);

// Launches `kernel` pass after pass, each turning `reach` values per block into
// one, until a single block is left; that pass writes d_sum. The passes
// ping-pong between two workspace buffers of ceil(n/B) and ceil(n/B^2) floats.
static cudaError_t multi_pass(pass_kernel kernel, size_t reach, size_t smem, const float *x, size_t n, float *d_sum,
                              void *d_work, cudaStream_t stream) {
  float *buf[2] = {(float *)d_work, (float *)d_work + ceil_div(n, kBlock)};
  const float *in = x;
  for (int pass = 0;; pass++) {
    size_t blocks = ceil_div(n, reach);
    float *out = blocks == 1 ? d_sum : buf[pass % 2];
    unsigned grid;
    cudaError_t err = grid_for(n, (unsigned)reach, &grid);
    if (err != cudaSuccess) return err;
    kernel<<<grid, kBlock, smem, stream>>>(in, n, out);
    if ((err = cudaGetLastError()) != cudaSuccess || blocks == 1) return err;
    in = out;
    n = blocks;
  }
}

#define CLASSIC_VARIANT(name, kernel, reach, smem)                                                         \
  extern "C" cudaError_t name(const float *x, size_t n, float *d_sum, void *d_work, cudaStream_t stream) { \
    bool done;                                                                                             \
    cudaError_t err = reduce_check_args(x, n, d_sum, d_work, stream, &done);                               \
    if (err != cudaSuccess || done) return err;                                                            \
    return multi_pass(kernel, reach, smem, x, n, d_sum, d_work, stream);                                   \
  }

CLASSIC_VARIANT(reduce_v0_interleaved, v0_kernel, kBlock, kBlock * sizeof(float))
CLASSIC_VARIANT(reduce_v1_strided_index, v1_kernel, kBlock, kBlock * sizeof(float))
CLASSIC_VARIANT(reduce_v2_sequential, v2_kernel, kBlock, kBlock * sizeof(float))
CLASSIC_VARIANT(reduce_v3_first_add_on_load, v3_kernel, 2 * kBlock, kBlock * sizeof(float))
CLASSIC_VARIANT(reduce_v4_unroll_last_warp, v4_kernel, 2 * kBlock, kBlock * sizeof(float))
CLASSIC_VARIANT(reduce_v5_full_unroll, v5_kernel<kBlock>, 2 * kBlock, 0)

// ---------------------------------------------------------------------------
// v6: a grid that fills the device once; each thread adds many values,
// two per 2B-strided step, before the unrolled tree. A second launch of
// one block (the same kernel) sums the block totals.

template <unsigned B>
static __global__ void __launch_bounds__(B) v6_kernel(const float *in, size_t n, float *out) {
  __shared__ float s[B];
  const unsigned tid = threadIdx.x;
  float v = 0.0f;
  for (size_t i = (size_t)blockIdx.x * 2 * B + tid; i < n; i += (size_t)gridDim.x * 2 * B) {
    v += in[i];
    if (i + B < n) v += in[i + B];
  }
  s[tid] = v;
  __syncthreads();
  v = tree_unrolled<B>(s, tid);
  if (tid == 0) out[blockIdx.x] = v;
}

extern "C" cudaError_t reduce_v6_multi_add(const float *x, size_t n, float *d_sum, void *d_work, cudaStream_t stream) {
  bool done;
  cudaError_t err = reduce_check_args(x, n, d_sum, d_work, stream, &done);
  if (err != cudaSuccess || done) return err;
  unsigned fill;
  if ((err = grid_fill_device(v6_kernel<kBlock>, kBlock, 0, &fill)) != cudaSuccess) return err;
  unsigned grid = (unsigned)min_size(min_size(fill, ceil_div(n, 2 * kBlock)), REDUCE_MAX_PARTIALS);
  float *partials = (float *)d_work;
  v6_kernel<kBlock><<<grid, kBlock, 0, stream>>>(x, n, grid == 1 ? d_sum : partials);
  if ((err = cudaGetLastError()) != cudaSuccess || grid == 1) return err;
  v6_kernel<kBlock><<<1, kBlock, 0, stream>>>(partials, grid, d_sum);
  return cudaGetLastError();
}

// ---------------------------------------------------------------------------
// v7: bandwidth-bound. 16-byte read-only loads, four independent ones in
// flight per thread, a grid that fills the device (grid-stride beyond it),
// shuffle trees, and the last block to finish writes the sum: one launch.

static const unsigned kUnroll = 4; // float4 loads in flight per thread

static __device__ __forceinline__ float sum4(float4 a) { return (a.x + a.y) + (a.z + a.w); }

// This thread's share of x4[0, nvec): four float4 loads in flight per step.
static __device__ __forceinline__ float vec4_thread_sum(const float4 *x4, size_t nvec, size_t tid, size_t stride) {
  float v = 0.0f;
  size_t i = tid;
  for (; i + (kUnroll - 1) * stride < nvec; i += kUnroll * stride) {
    float4 a = __ldg(x4 + i), b = __ldg(x4 + i + stride), c = __ldg(x4 + i + 2 * stride),
           d = __ldg(x4 + i + 3 * stride);
    v += (sum4(a) + sum4(b)) + (sum4(c) + sum4(d));
  }
  for (; i < nvec; i += stride) v += sum4(__ldg(x4 + i));
  return v;
}

// x + head is 16-byte aligned; nvec float4s follow it. The `head` scalars
// before it and the (< 4) scalars after the last float4 are added by the
// first threads.
template <unsigned B>
static __global__ void __launch_bounds__(B)
    v7_kernel(const float *x, size_t n, size_t head, size_t nvec, float *partials, unsigned *counter, float *out) {
  const float4 *x4 = (const float4 *)(x + head);
  const size_t tid = (size_t)blockIdx.x * B + threadIdx.x, stride = (size_t)gridDim.x * B;
  float v = vec4_thread_sum(x4, nvec, tid, stride);
#if SLOWDOWN_WORK_PCT > 0
  // Injected slowdown (gate testing only): the first PCT% of the vectors read again and added
  // times zero (kept by the compiler: 0 * x is not folded), so the sum is unchanged.
  for (size_t w = tid; w < slowdown_work(nvec) - nvec; w += stride) v += 0.0f * sum4(__ldg(x4 + w));
#endif
  if (tid < head) v += x[tid];
  if (head + 4 * nvec + tid < n) v += x[head + 4 * nvec + tid];
  v = block_sum<B>(v);
  last_block_finish<B>(v, partials, counter, out);
}

extern "C" cudaError_t reduce_v7_shuffle_vec4(const float *x, size_t n, float *d_sum, void *d_work,
                                              cudaStream_t stream) {
  bool done;
  cudaError_t err = reduce_check_args(x, n, d_sum, d_work, stream, &done);
  if (err != cudaSuccess || done) return err;
  size_t head = min_size(((16 - (uintptr_t)x % 16) % 16) / sizeof(float), n); // scalars before 16-byte alignment
  size_t nvec = (n - head) / 4;
  unsigned fill;
  if ((err = grid_fill_device(v7_kernel<kBlock>, kBlock, 0, &fill)) != cudaSuccess) return err;
  size_t work_blocks = ceil_div(nvec, kBlock * kUnroll);
  unsigned grid = (unsigned)min_size(min_size(fill, work_blocks > 0 ? work_blocks : 1), REDUCE_MAX_PARTIALS);
  unsigned *counter = (unsigned *)d_work;
  float *partials = (float *)d_work + 4; // after the counter's 16 bytes
  if ((err = cudaMemsetAsync(counter, 0, sizeof *counter, stream)) != cudaSuccess) return err;
  if ((err = slowdown_extra_launch(x + head, nvec, stream)) != cudaSuccess) return err;
  v7_kernel<kBlock><<<slowdown_grid(grid), kBlock, 0, stream>>>(x, n, head, nvec, partials, counter, d_sum);
  return cudaGetLastError();
}

// ---------------------------------------------------------------------------
// v8: v7 without its memset and on an oversubscribed grid. The block counter is
// this module's own device variable (0 when the module loads, one per CUDA
// context), and last_block_finish leaves it at 0, so no launch needs to clear
// it. 1024-thread blocks, up to 16 device fills (at 2^28 on an H100, 4224
// blocks): in a sweep of block sizes and grids that was 1.8 % faster than CUB
// and 3 % faster than v7's grid of one fill. The partials fit in d_work: the
// grid never exceeds the work's own (n / 16384 blocks), and reduce_work_bytes
// gives at least n / 256 floats.

static const unsigned kBlockV8 = 1024;
static const unsigned kFillsV8 = 16;
static __device__ unsigned v8_counter;

static __global__ void __launch_bounds__(kBlockV8)
    v8_kernel(const float *x, size_t n, size_t head, size_t nvec, float *partials, float *out) {
  const float4 *x4 = (const float4 *)(x + head);
  const size_t tid = (size_t)blockIdx.x * kBlockV8 + threadIdx.x, stride = (size_t)gridDim.x * kBlockV8;
  float v = vec4_thread_sum(x4, nvec, tid, stride);
  if (tid < head) v += x[tid];
  if (head + 4 * nvec + tid < n) v += x[head + 4 * nvec + tid];
  v = block_sum<kBlockV8>(v);
  last_block_finish<kBlockV8>(v, partials, &v8_counter, out);
}

extern "C" cudaError_t reduce_v8_no_memset(const float *x, size_t n, float *d_sum, void *d_work, cudaStream_t stream) {
  bool done;
  cudaError_t err = reduce_check_args(x, n, d_sum, d_work, stream, &done);
  if (err != cudaSuccess || done) return err;
  size_t head = min_size(((16 - (uintptr_t)x % 16) % 16) / sizeof(float), n);
  size_t nvec = (n - head) / 4;
  unsigned fill;
  if ((err = grid_fill_device(v8_kernel, kBlockV8, 0, &fill)) != cudaSuccess) return err;
  size_t work_blocks = ceil_div(nvec, kBlockV8 * kUnroll);
  size_t grid = min_size((size_t)kFillsV8 * fill, work_blocks > 0 ? work_blocks : 1);
  v8_kernel<<<(unsigned)grid, kBlockV8, 0, stream>>>(x, n, head, nvec, (float *)d_work + 4, d_sum);
  return cudaGetLastError();
}

// ---------------------------------------------------------------------------

extern "C" size_t reduce_work_bytes(size_t n) {
  // v0..v5: ping-pong buffers of ceil(n/B) and ceil(n/B^2) block totals;
  // v6/v7/v8: a counter (16 bytes; v8 leaves it unused) and at most REDUCE_MAX_PARTIALS block totals.
  size_t floats = ceil_div(n, kBlock) + ceil_div(n, (size_t)kBlock * kBlock);
  if (floats < 4 + REDUCE_MAX_PARTIALS) floats = 4 + REDUCE_MAX_PARTIALS;
  size_t own = ceil_div(floats * sizeof(float), 256) * 256;
  size_t cub = 0;
  if (n > 0 && reduce_cub_temp_bytes(n, &cub) != cudaSuccess) return SIZE_MAX;
  return own > cub ? own : cub;
}
