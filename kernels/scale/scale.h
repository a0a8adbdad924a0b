/* Scaling of a float array: y[i] = a * x[i].
 *
 * Both variants take device pointers and a count `n` (any value, 0 included), launch on `stream`
 * (0 for the default stream) and return cudaSuccess or the CUDA error; they never exit. x and y
 * must not overlap. NULL is accepted only when n == 0 (else cudaErrorInvalidValue); pointers must
 * be float-aligned (else cudaErrorMisalignedAddress).
 */
#ifndef KERNELS_SCALE_SCALE_H
#define KERNELS_SCALE_SCALE_H

#include <stddef.h>
#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

/* One float per thread and step of a grid-stride loop. */
cudaError_t scale(float a, const float *x, float *y, size_t n, cudaStream_t stream);

/* 16-byte float4 loads and stores for the aligned body, scalar head and tail; when x and y sit at
 * different offsets from 16-byte alignment, the scalar kernel. */
cudaError_t scale_float4(float a, const float *x, float *y, size_t n, cudaStream_t stream);

/* The scalar kernel's grid-stride loop on a grid that fills the device once. */
cudaError_t scale_device_fill(float a, const float *x, float *y, size_t n, cudaStream_t stream);

#ifdef __cplusplus
}
#endif

#endif
