// Library reference: transpose through cuBLAS sgeam, behind the same C API.
#include <cublas_v2.h>

#include "kernels/common/context_cache.h"
#include "kernels/common/launch.cuh"
#include "kernels/transpose/transpose.h"

extern "C" cudaError_t transpose_cublas(const float *in, float *out, int nx, int ny, cudaStream_t stream) {
  if (nx < 0 || ny < 0) return cudaErrorInvalidValue;
  if (nx == 0 || ny == 0) return cudaSuccess;
  if (!in || !out) return cudaErrorInvalidValue;
  if (!is_aligned(in, sizeof(float)) || !is_aligned(out, sizeof(float))) return cudaErrorMisalignedAddress;
  // alpha and beta live on the host; default math, whatever sgemm left on the context's shared handle.
  cublasHandle_t h;
  cudaError_t err = cublas_for_current_context(stream, CUBLAS_POINTER_MODE_HOST, CUBLAS_DEFAULT_MATH, &h);
  if (err != cudaSuccess) return err;
  // cuBLAS is column-major. Row-major `in` (ny rows of nx) is the column-major
  // nx x ny matrix with leading dimension nx; row-major `out` (nx rows of ny) is
  // the column-major ny x nx matrix with leading dimension ny. So
  // out = 1 * in^T + 0 * B with m = ny, n = nx. B (ny x nx, ld ny) is not meant
  // to be read when beta = 0; `in` is passed as a valid, finite stand-in.
  const float one = 1.0f, zero = 0.0f;
  return cublas_error(cublasSgeam(h, CUBLAS_OP_T, CUBLAS_OP_N, ny, nx, &one, in, nx, &zero, in, ny, out, ny));
}
