/* What belongs to one CUDA context, made on first use in it: the cuBLAS handle of the library
 * references (saxpy, sdot, sgeam, sgemm), mapped page-locked host scratch (dot/tree_host_finish) and
 * device workspace per stream (matmul/splitk's partial products).
 * All belong to the context they were made in, and the benchmark runner measures in several
 * contexts of one process (cuCtxCreate / cuCtxSetCurrent), so one static handle or buffer will not do.
 * The cuBLAS part is declared for .cu files only: CUDA 13's cuBLAS headers include C++ ones.
 */
#ifndef KERNELS_COMMON_CONTEXT_CACHE_H
#define KERNELS_COMMON_CONTEXT_CACHE_H

#include <stddef.h>

#include <cuda_runtime_api.h>

#ifdef __cplusplus
#include <cublas_v2.h>
extern "C" {
#endif

/* *host = CONTEXT_SCRATCH_BYTES of page-locked host memory (cudaHostAlloc, mapped: kernels of the context
 * may write it through cudaHostGetDevicePointer) of the current context and the calling thread, zeroed
 * when made, kept for the next call, freed with the context. One per thread, so callers on different
 * threads never share one; a thread uses it between two calls only.
 * Returns cudaErrorInvalidValue when bytes > CONTEXT_SCRATCH_BYTES, cudaErrorMemoryAllocation when
 * the table is full or the allocation fails. */
#define CONTEXT_SCRATCH_BYTES 65536
cudaError_t pinned_scratch_for_current_context(size_t bytes, void **host);

/* *workspace = at least `bytes` of device memory of the current context for the launches of one
 * stream, kept for the next call; its contents are undefined.
 * Keyed by context and stream ID (cudaStreamGetId: unique for the life of the process, the NULL
 * stream included), so launches on two streams never share memory, and every earlier user of an
 * entry's memory was a launch on that one stream. When a call needs more than an entry holds, the
 * stream is synchronised (so nothing launched on it still uses the old memory), the old buffer freed
 * and a larger one allocated (cudaMalloc): a host-blocking call, made only when sizes grow, and not
 * allowed while the stream is being captured (the synchronisation returns the error). Callers of one
 * stream must not call from two host threads at once (a grow would free memory the other is about to
 * launch on); launches on one stream from several threads need such an order anyway. The memory of a
 * destroyed stream stays allocated until its context is destroyed. Returns cudaErrorMemoryAllocation
 * when the table is full or an allocation fails, else any error of the calls above. */
cudaError_t stream_workspace_for_current_context(cudaStream_t stream, size_t bytes, void **workspace);

#ifdef __cplusplus
/* *handle = the handle of the calling thread's current CUDA context (the runtime's primary context
 * if none is current yet), created on first use in that context, then bound to `stream` and set to
 * `pointer_mode` and `math_mode`. Every caller in the context shares the handle, so the modes are
 * set on every call (cheap host-side setters): one caller's modes never leak into another's.
 * Returns cudaErrorMemoryAllocation when the table of contexts is full. */
cudaError_t cublas_for_current_context(cudaStream_t stream, cublasPointerMode_t pointer_mode, cublasMath_t math_mode,
                                       cublasHandle_t *handle);

/* A cuBLAS status as a CUDA error. For EXECUTION_FAILED and unknown statuses a failed launch inside
 * cuBLAS (cudaGetLastError) is returned instead, because it says more. */
cudaError_t cublas_error(cublasStatus_t status);
} // extern "C"
#endif

#endif
