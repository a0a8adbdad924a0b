/* Sum of a float array into one float: the classic optimisation ladder
 * (v0..v6), bandwidth-bound one-launch kernels (v7, v8) and CUB as a library reference.
 *
 * Every variant takes device pointers: x (n floats, float-aligned; NULL only
 * when n == 0), d_sum (one float, never NULL) and d_work, a workspace of at
 * least reduce_work_bytes(n) bytes from cudaMalloc (NULL only when n == 0).
 * Variants initialise what they use of the workspace themselves, so calling
 * one again on the same workspace is correct. The whole sum, every pass and
 * any host step included, is done by the call: it is queued on `stream` and
 * the result lands in *d_sum in stream order (a variant that needs a host step
 * synchronises the stream internally). n == 0 gives 0.0f. Returns cudaSuccess,
 * cudaErrorInvalidValue (NULL pointer), cudaErrorMisalignedAddress (pointer
 * not float-aligned, or d_work not 16-byte aligned) or the CUDA error of a
 * launch; never exits.
 *
 * Summation order (what a test's error bound is derived from), with
 * B = REDUCE_BLOCK threads per block:
 *   v0..v2  each pass: blocks of B values, shared-memory tree of log2(B) levels;
 *           passes repeat on the block totals until one value remains.
 *   v3..v5  the same, each block covering 2B values (one add while loading).
 *   v6      grid of min(device fill, n / 2B, REDUCE_MAX_PARTIALS) blocks, each
 *           thread a sequential sum (two adds per 2B-strided step), a tree of
 *           log2(B) levels; a second launch of one block finishes.
 *   v7      grid of min(device fill, work, REDUCE_MAX_PARTIALS) blocks; each
 *           thread sums float4s (2 levels each, then 4 float4s per step) into a
 *           sequential sum, shuffle tree of 10 levels per block; the last block
 *           to finish sums the block totals (sequential per thread, 10 levels).
 *   v8      as v7 on min(16 device fills, work) blocks of 4B.
 */
#ifndef KERNELS_REDUCE_REDUCE_H
#define KERNELS_REDUCE_REDUCE_H

#include <stddef.h>
#include <cuda_runtime_api.h>

#include "kernels/common/slowdown.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Threads per block of every variant here (CUB chooses its own). */
#define REDUCE_BLOCK 256
/* The most blocks v6 and v7 launch (one partial sum per block in d_work). */
#define REDUCE_MAX_PARTIALS 4096

/* Workspace bytes any variant below needs for n elements. Includes CUB's
 * temporary storage, which CUB sizes for the current device: returns
 * SIZE_MAX when the device cannot be queried, so the caller's cudaMalloc
 * fails instead of a variant overrunning a short workspace. */
size_t reduce_work_bytes(size_t n);

typedef cudaError_t (*reduce_fn)(const float *x, size_t n, float *d_sum, void *d_work, cudaStream_t stream);

/* v0: interleaved addressing, active threads chosen by tid % (2 * stride). */
cudaError_t reduce_v0_interleaved(const float *x, size_t n, float *d_sum, void *d_work, cudaStream_t stream);
/* v1: interleaved addressing through a strided index (no %, no divergence
 * within most warps; shared-memory bank conflicts remain). */
cudaError_t reduce_v1_strided_index(const float *x, size_t n, float *d_sum, void *d_work, cudaStream_t stream);
/* v2: sequential addressing (conflict-free: halves fold onto each other). */
cudaError_t reduce_v2_sequential(const float *x, size_t n, float *d_sum, void *d_work, cudaStream_t stream);
/* v3: as v2, each thread adds two elements while loading (half the blocks). */
cudaError_t reduce_v3_first_add_on_load(const float *x, size_t n, float *d_sum, void *d_work, cudaStream_t stream);
/* v4: as v3, the last warp's six steps unrolled without block barriers. */
cudaError_t reduce_v4_unroll_last_warp(const float *x, size_t n, float *d_sum, void *d_work, cudaStream_t stream);
/* v5: as v4, the whole tree unrolled for a compile-time block size. */
cudaError_t reduce_v5_full_unroll(const float *x, size_t n, float *d_sum, void *d_work, cudaStream_t stream);
/* v6: as v5, many adds per thread over a grid sized to fill the device;
 * a second one-block launch sums the block totals. */
cudaError_t reduce_v6_multi_add(const float *x, size_t n, float *d_sum, void *d_work, cudaStream_t stream);
/* v7: 16-byte loads (scalar head/tail for misaligned x), four in flight per
 * thread, warp shuffles, grid filling the device; one kernel launch (after a
 * 4-byte memset of its block counter) whose last block writes the sum. */
cudaError_t reduce_v7_shuffle_vec4(const float *x, size_t n, float *d_sum, void *d_work, cudaStream_t stream);
/* v8: as v7 without the memset (its block counter is the module's own, per CUDA
 * context, and goes back to 0 at the end of every launch), on 1024-thread
 * blocks, up to 16 device fills. Calls of v8 in one context must not run
 * concurrently (they share that counter): issue them on one stream. */
cudaError_t reduce_v8_no_memset(const float *x, size_t n, float *d_sum, void *d_work, cudaStream_t stream);
/* Library reference: cub::DeviceReduce::Sum, its temporary storage in d_work. */
cudaError_t reduce_cub(const float *x, size_t n, float *d_sum, void *d_work, cudaStream_t stream);

/* The slowdowns injected into v7 by the build settings
 * --//kernels/common:slowdown_{work,grid,launch}_pct (percent; all 0 in a normal build). */
kernel_slowdown reduce_injected_slowdown(void);

#ifdef __cplusplus
}
#endif

#endif
