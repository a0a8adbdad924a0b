/* One cuBLAS handle per CUDA context, shared by the library references (saxpy, sdot, sgeam, sgemm).
 * A handle belongs to the context it was created in, and the benchmark runner measures in several
 * contexts of one process (cuCtxCreate / cuCtxSetCurrent), so one static handle will not do.
 */
#ifndef KERNELS_COMMON_CUBLAS_CONTEXT_H
#define KERNELS_COMMON_CUBLAS_CONTEXT_H

#include <cublas_v2.h>
#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

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

#ifdef __cplusplus
}
#endif

#endif
