// Library reference: CUB's device-wide sum behind the reduce.h C API.
#include <cub/device/device_reduce.cuh>

#include "kernels/reduce/reduce.h"
#include "kernels/reduce/reduce_internal.h"

extern "C" cudaError_t reduce_cub_temp_bytes(size_t n, size_t *bytes) {
  *bytes = 0;
  return cub::DeviceReduce::Sum(nullptr, *bytes, (const float *)nullptr, (float *)nullptr, n);
}

extern "C" cudaError_t reduce_cub(const float *x, size_t n, float *d_sum, void *d_work, cudaStream_t stream) {
  bool done;
  cudaError_t err = reduce_check_args(x, n, d_sum, d_work, stream, &done);
  if (err != cudaSuccess || done) return err;
  size_t bytes;
  if ((err = reduce_cub_temp_bytes(n, &bytes)) != cudaSuccess) return err;
  // d_work holds reduce_work_bytes(n) >= bytes (the same query).
  if ((err = cub::DeviceReduce::Sum(d_work, bytes, x, d_sum, n, stream)) != cudaSuccess) return err;
  return cudaGetLastError();
}
