/* Dot product of two float arrays into one float: the classic shared-memory
 * tree finished on the host or by atomicAdd, a bandwidth-bound one-launch
 * kernel, and cuBLAS sdot as a library reference.
 *
 * Every variant takes device pointers: x and y (n floats each, float-aligned;
 * NULL only when n == 0), d_result (one float, never NULL) and d_work, a
 * workspace of at least dot_work_bytes(n) bytes from cudaMalloc (NULL only
 * when n == 0). Variants initialise what they use of the workspace themselves,
 * so calling one again on the same workspace is correct. The whole dot product,
 * any host step included, is done by the call: it is queued on `stream` and the
 * result lands in *d_result in stream order (dot_tree_host_finish waits on the
 * host once, for the block totals, and queues the store of the result on
 * `stream`). n == 0 gives 0.0f.
 * Returns cudaSuccess, cudaErrorInvalidValue (NULL pointer),
 * cudaErrorMisalignedAddress (pointer not float-aligned, d_work not 16-byte
 * aligned) or the CUDA error of a launch; never exits.
 *
 * Summation order (for error bounds), B = DOT_BLOCK threads per block and
 * G = min(device fill, work, DOT_MAX_PARTIALS) blocks:
 *   tree_*      each thread a sequential sum of products over a grid-stride
 *               loop, a shared-memory tree of log2(B) levels per block; the G
 *               block totals are summed on the host in double (host_finish) or
 *               by G atomicAdds in arbitrary order (atomic).
 *   shuffle_vec4  as reduce v7: per thread, float4 pairs (2 levels each, 4 per
 *               step) into a sequential sum; 10-level shuffle tree per block;
 *               the last block sums the G totals (sequential per thread, 10 levels).
 */
#ifndef KERNELS_DOT_DOT_H
#define KERNELS_DOT_DOT_H

#include <stddef.h>
#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Threads per block of the variants here (cuBLAS chooses its own). */
#define DOT_BLOCK 256
/* The most blocks a variant here launches (one partial sum per block in d_work). */
#define DOT_MAX_PARTIALS 4096

/* Workspace bytes any variant below needs for n elements (cuBLAS uses none). */
size_t dot_work_bytes(size_t n);

typedef cudaError_t (*dot_fn)(const float *x, const float *y, size_t n, float *d_result, void *d_work,
                              cudaStream_t stream);

/* Shared-memory tree per block; each block writes its total into mapped page-locked host memory of the
 * current context and thread (kernels/common/context_cache.h, made on the first call), the host waits
 * for them there (spinning; it returns the stream's error if the kernel fails), sums them in double,
 * and the result is stored by a one-thread kernel. The wait is for all work queued on `stream` before. */
cudaError_t dot_tree_host_finish(const float *x, const float *y, size_t n, float *d_result, void *d_work,
                                 cudaStream_t stream);
/* The same tree; every block atomicAdds its total into *d_result (zeroed first
 * by a memset on `stream`). The order of the adds, so the last bits of the
 * result, varies from run to run. */
cudaError_t dot_tree_atomic(const float *x, const float *y, size_t n, float *d_result, void *d_work,
                            cudaStream_t stream);
/* 16-byte loads of x and y (scalar head/tail), four pairs in flight per thread,
 * warp shuffles, grid filling the device; one kernel launch (after a 4-byte
 * memset of its block counter) whose last block writes the result. When x and
 * y sit at different offsets from 16-byte alignment no float4 index fits both:
 * then every element takes the scalar path (correct, not vectorised). */
cudaError_t dot_shuffle_vec4(const float *x, const float *y, size_t n, float *d_result, void *d_work,
                             cudaStream_t stream);
/* Library reference: cublasSdot (64-bit size API), result written on the device.
 * It uses the current CUDA context's cuBLAS handle (kernels/common/context_cache.h:
 * made on the first call in that context), in device pointer mode; every call
 * sets its stream and modes. */
cudaError_t dot_cublas(const float *x, const float *y, size_t n, float *d_result, void *d_work, cudaStream_t stream);

#ifdef __cplusplus
}
#endif

#endif
