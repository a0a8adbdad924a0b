/* counts[b] = the number of i < n with x[i] == b, for the 256 byte values b: the example's second
 * family, over bytes in and 32-bit integer counts out. Device pointers; x of any alignment and any n
 * (0 included; NULL only then); counts, 256 int32 (4-byte aligned), is overwritten, never added to,
 * so that a run can be repeated. Launched on `stream`; returns the CUDA error, never exits. */
#ifndef KERNELS_HISTOGRAM_HISTOGRAM_H
#define KERNELS_HISTOGRAM_HISTOGRAM_H

#include <stddef.h>
#include <stdint.h>
#include <cuda_runtime_api.h>

#define HISTOGRAM_BINS 256

#ifdef __cplusplus
extern "C" {
#endif

/* One global atomic add per byte. */
cudaError_t histogram_global(const uint8_t *x, int32_t *counts, size_t n, cudaStream_t stream);
/* Each block counts into its own bins in shared memory and adds them to counts once. */
cudaError_t histogram_shared(const uint8_t *x, int32_t *counts, size_t n, cudaStream_t stream);
/* The same, reading 16 bytes per load (the bytes before x's first 16-byte boundary and after the
 * last whole 16 one at a time). */
cudaError_t histogram_shared_uint4(const uint8_t *x, int32_t *counts, size_t n, cudaStream_t stream);

#ifdef __cplusplus
}
#endif

#endif
