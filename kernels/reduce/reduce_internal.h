// Shared by the .cu files of the reduce family; not part of the C API.
#ifndef KERNELS_REDUCE_REDUCE_INTERNAL_H
#define KERNELS_REDUCE_REDUCE_INTERNAL_H

#include "kernels/common/launch.cuh"
#include "kernels/reduce/reduce.h"

// CUB's temporary storage for a sum over n floats on the current device.
extern "C" cudaError_t reduce_cub_temp_bytes(size_t n, size_t *bytes);

// The argument rules of reduce.h; n == 0 is answered here with *d_sum = 0.0f.
// Returns cudaSuccess with *done set when nothing is left to do.
static inline cudaError_t reduce_check_args(const float *x, size_t n, float *d_sum, void *d_work, cudaStream_t stream,
                                            bool *done) {
  *done = true;
  if (!d_sum) return cudaErrorInvalidValue;
  if (!is_aligned(d_sum, sizeof(float))) return cudaErrorMisalignedAddress;
  if (n == 0) return cudaMemsetAsync(d_sum, 0, sizeof(float), stream); // 0.0f is all zero bits
  if (!x || !d_work) return cudaErrorInvalidValue;
  if (!is_aligned(x, sizeof(float)) || !is_aligned(d_work, 16)) return cudaErrorMisalignedAddress;
  *done = false;
  return cudaSuccess;
}

#endif
