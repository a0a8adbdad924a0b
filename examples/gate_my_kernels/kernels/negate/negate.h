/* y[i] = -x[i]: the example family of a workspace that gates its own kernels with the suite.
 * Device pointers, any n (0 included; NULL only then), launched on `stream`; returns the CUDA
 * error, never exits. */
#ifndef KERNELS_NEGATE_NEGATE_H
#define KERNELS_NEGATE_NEGATE_H

#include <stddef.h>
#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

cudaError_t negate(const float *x, float *y, size_t n, cudaStream_t stream);

#ifdef __cplusplus
}
#endif

#endif
