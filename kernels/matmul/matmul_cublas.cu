// Library references: cuBLAS sgemm in pedantic fp32 and with TF32 tensor cores, behind the same C API.
#include <cublas_v2.h>

#include "kernels/common/context_cache.h"
#include "kernels/matmul/matmul.h"
#include "kernels/matmul/matmul_args.cuh"

// Row-major C = A * B through sgemm in `math` mode, on the current context's shared handle. alpha and beta
// live on the host (sdot leaves device pointer mode on that handle).
static cudaError_t sgemm_row_major(const float *A, const float *B, float *C, int M, int N, int K, cudaStream_t stream,
                                   cublasMath_t math) {
  int run;
  cudaError_t err = matmul_prepare(A, B, C, M, N, K, stream, &run);
  if (err != cudaSuccess || !run) return err;
  cublasHandle_t h;
  if ((err = cublas_for_current_context(stream, CUBLAS_POINTER_MODE_HOST, math, &h)) != cudaSuccess) return err;
  // cuBLAS is column-major: a row-major R x S matrix is its column-major
  // transpose (S x R, leading dimension S). Row-major C = A * B is therefore
  // column-major C^T = B^T * A^T: m = N, n = M, k = K, with B^T (N x K, ld N)
  // first and A^T (K x M, ld K) second, C^T ld N.
  const float one = 1.0f, zero = 0.0f;
  return cublas_error(cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, N, M, K, &one, B, N, A, K, &zero, C, N));
}

// CUBLAS_PEDANTIC_MATH: sgemm then uses the prescribed fp32 arithmetic throughout (no TF32 tensor cores, no
// BF16x9 emulation, whatever NVIDIA_TF32_OVERRIDE or CUBLAS_EMULATION_STRATEGY say).
extern "C" cudaError_t matmul_cublas(const float *A, const float *B, float *C, int M, int N, int K,
                                     cudaStream_t stream) {
  return sgemm_row_major(A, B, C, M, N, K, stream, CUBLAS_PEDANTIC_MATH);
}

// CUBLAS_TF32_TENSOR_OP_MATH: sgemm may reduce its inputs to TF32 and run on tensor cores (what torch.mm does
// with allow_tf32): the library reference of the TF32 steps.
extern "C" cudaError_t matmul_cublas_tf32(const float *A, const float *B, float *C, int M, int N, int K,
                                          cudaStream_t stream) {
  return sgemm_row_major(A, B, C, M, N, K, stream, CUBLAS_TF32_TENSOR_OP_MATH);
}
