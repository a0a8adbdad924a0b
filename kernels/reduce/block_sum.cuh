// Warp- and block-level float sums and the one-launch "last block finishes"
// step, shared by reduce v7 and the optimised dot (CUDA C, .cu files only).
#ifndef KERNELS_REDUCE_BLOCK_SUM_CUH
#define KERNELS_REDUCE_BLOCK_SUM_CUH

#include <cuda_runtime.h>

// Tree sum over the 32 lanes by register shuffles (5 levels); the total is in lane 0.
static __device__ __forceinline__ float warp_sum(float v) {
  for (int offset = 16; offset > 0; offset >>= 1) v += __shfl_down_sync(0xffffffffu, v, offset);
  return v;
}

// Sum over a block of B threads (B a multiple of 32, at most 1024); the total
// is in thread 0. Shuffles within each warp, then warp 0 sums the warp totals:
// 10 levels of additions. Two calls in one kernel must be separated by a
// __syncthreads() (both use `warp_totals`).
template <unsigned B>
static __device__ __forceinline__ float block_sum(float v) {
  static_assert(B % 32 == 0 && B <= 1024, "block size must be a multiple of 32, at most 1024");
  __shared__ float warp_totals[B / 32];
  const unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  v = warp_sum(v);
  if (lane == 0) warp_totals[warp] = v;
  __syncthreads();
  v = 0.0f;
  if (warp == 0) v = warp_sum(lane < B / 32 ? warp_totals[lane] : 0.0f);
  return v;
}

// Every block calls this once with its total (valid in thread 0). Each block
// stores its total in partials[blockIdx.x] and counts itself done; the last
// block to arrive sums all gridDim.x totals in index order (so the result does
// not depend on block timing) and writes *out. `*counter` must be 0 at launch;
// the count wraps back to 0 with the last block, so it is 0 again afterwards.
template <unsigned B>
static __device__ __forceinline__ void last_block_finish(float block_total, float *partials, unsigned *counter,
                                                         float *out) {
  __shared__ bool is_last;
  if (threadIdx.x == 0) {
    partials[blockIdx.x] = block_total;
    __threadfence(); // the total is visible device-wide before the count says so
    is_last = atomicInc(counter, gridDim.x - 1) == gridDim.x - 1; // the last one stores 0
  }
  __syncthreads(); // also separates the caller's block_sum from the one below
  if (!is_last) return;
  __threadfence();
  float v = 0.0f;
  // __ldcg reads L2, where the other blocks' totals are, never a stale L1 line.
  for (unsigned i = threadIdx.x; i < gridDim.x; i += B) v += __ldcg(partials + i);
  v = block_sum<B>(v);
  if (threadIdx.x == 0) *out = v;
}

#endif
