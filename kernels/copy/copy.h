/* Device-to-device copy of float arrays: dst[i] = src[i].
 *
 * The limit every memory-bound benchmark is measured against: a kernel that
 * only moves bytes (copy_float4), and the driver's own copy (copy_memcpy).
 * All take device pointers and a count `n` (any value, 0 included), launch on
 * `stream` (0 for the default stream) and return cudaSuccess or the CUDA error;
 * they never exit. src and dst must not overlap. NULL is accepted only when
 * n == 0 (else cudaErrorInvalidValue); pointers must be float-aligned.
 */
#ifndef KERNELS_COPY_COPY_H
#define KERNELS_COPY_COPY_H

#include <stddef.h>
#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

/* 16-byte float4 loads and stores for the aligned body, scalar head and tail.
 * When src and dst sit at different offsets from 16-byte alignment no float4
 * index fits both; the copy then takes a scalar grid-stride loop. */
cudaError_t copy_float4(const float *src, float *dst, size_t n, cudaStream_t stream);

/* copy_float4 on 1024-thread blocks, its loads and stores cached in L2 only (.cg). */
cudaError_t copy_float4_b1024_cg(const float *src, float *dst, size_t n, cudaStream_t stream);

/* cudaMemcpyAsync device-to-device: the library baseline. */
cudaError_t copy_memcpy(const float *src, float *dst, size_t n, cudaStream_t stream);

#ifdef __cplusplus
}
#endif

#endif
