/* Element-wise kernels: c = a + b and y = alpha * x + y on float arrays, and
 * cuBLAS saxpy as the library reference.
 *
 * Every function takes device pointers and a count `n` (any value, 0 included),
 * launches on `stream` (0 for the default stream) and returns cudaSuccess or the
 * CUDA error of the launch; it never exits. Pointers must be float-aligned;
 * NULL is accepted only when n == 0 (else cudaErrorInvalidValue).
 */
#ifndef KERNELS_ELEMENTWISE_ELEMENTWISE_H
#define KERNELS_ELEMENTWISE_ELEMENTWISE_H

#include <stddef.h>
#include <cuda_runtime_api.h>

#include "kernels/common/slowdown.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One element per thread (grid-stride beyond the grid limit). */
cudaError_t ew_add(const float *a, const float *b, float *c, size_t n, cudaStream_t stream);

/* 16-byte float4 loads and stores for the aligned body, scalar head and tail.
 * Pointers whose offsets from 16-byte alignment differ cannot share one float4
 * index; they take the scalar path (still correct, not vectorised). */
cudaError_t ew_add_float4(const float *a, const float *b, float *c, size_t n, cudaStream_t stream);

/* y = alpha * x + y, one element per thread. */
cudaError_t ew_saxpy(float alpha, const float *x, float *y, size_t n, cudaStream_t stream);

/* y = alpha * x + y with float4 loads and stores, as ew_add_float4: x and y at
 * different offsets from 16-byte alignment take the scalar path (ew_saxpy). */
cudaError_t ew_saxpy_float4(float alpha, const float *x, float *y, size_t n, cudaStream_t stream);

/* Library reference (never the code under test): cublasSaxpy_64 with alpha in
 * host memory, through the current CUDA context's cuBLAS handle
 * (kernels/common/context_cache.h: made on the first call in that context);
 * every call sets its stream and modes. A cuBLAS failure maps to the closest
 * cudaError_t. */
cudaError_t ew_saxpy_cublas(float alpha, const float *x, float *y, size_t n, cudaStream_t stream);

/* The slowdowns injected into add_float4 by the build settings
 * --//kernels/common:slowdown_{work,grid,launch}_pct (percent; all 0 in a normal build). */
kernel_slowdown ew_injected_slowdown(void);

#ifdef __cplusplus
}
#endif

#endif
