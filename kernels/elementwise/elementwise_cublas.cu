// Library reference: y = alpha * x + y through cuBLAS saxpy, behind the same C API.
#include <cublas_v2.h>

#include "kernels/common/context_cache.h"
#include "kernels/common/launch.cuh"
#include "kernels/elementwise/elementwise.h"

extern "C" cudaError_t ew_saxpy_cublas(float alpha, const float *x, float *y, size_t n, cudaStream_t stream) {
  if (n == 0) return cudaSuccess;
  if (!x || !y) return cudaErrorInvalidValue;
  if (!is_aligned(x, sizeof(float)) || !is_aligned(y, sizeof(float))) return cudaErrorMisalignedAddress;
  // alpha lives on the host; default math, whatever sgemm left on the context's shared handle.
  cublasHandle_t h;
  cudaError_t err = cublas_for_current_context(stream, CUBLAS_POINTER_MODE_HOST, CUBLAS_DEFAULT_MATH, &h);
  if (err != cudaSuccess) return err;
  if ((err = cublas_error(cublasSaxpy_64(h, (int64_t)n, &alpha, x, 1, y, 1))) != cudaSuccess) return err;
  return cudaGetLastError();
}
