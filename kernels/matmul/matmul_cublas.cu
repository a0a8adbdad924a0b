// Library reference: cuBLAS sgemm in pedantic fp32, behind the same C API.
#include <cublas_v2.h>

#include "kernels/matmul/matmul.h"
#include "kernels/matmul/matmul_args.cuh"

// Created on first use (a benchmark's warm-up), kept for the life of the process.
static cublasHandle_t g_handle;

static cudaError_t from_cublas(cublasStatus_t s) {
  switch (s) {
    case CUBLAS_STATUS_SUCCESS: return cudaSuccess;
    case CUBLAS_STATUS_INVALID_VALUE: return cudaErrorInvalidValue;
    case CUBLAS_STATUS_ALLOC_FAILED: return cudaErrorMemoryAllocation;
    case CUBLAS_STATUS_NOT_INITIALIZED: return cudaErrorInitializationError;
    case CUBLAS_STATUS_ARCH_MISMATCH: return cudaErrorNoKernelImageForDevice;
    case CUBLAS_STATUS_EXECUTION_FAILED: return cudaErrorLaunchFailure;
    default: return cudaErrorUnknown;
  }
}

// The handle, created with CUBLAS_PEDANTIC_MATH: sgemm then uses the
// prescribed fp32 arithmetic throughout (no TF32 tensor cores, no BF16x9
// emulation, whatever NVIDIA_TF32_OVERRIDE or CUBLAS_EMULATION_STRATEGY say).
static cudaError_t handle(cublasHandle_t *h) {
  if (!g_handle) {
    cublasHandle_t created;
    cublasStatus_t s = cublasCreate(&created);
    if (s != CUBLAS_STATUS_SUCCESS) return from_cublas(s);
    if ((s = cublasSetMathMode(created, CUBLAS_PEDANTIC_MATH)) != CUBLAS_STATUS_SUCCESS) {
      cublasDestroy(created);
      return from_cublas(s);
    }
    g_handle = created;
  }
  *h = g_handle;
  return cudaSuccess;
}

extern "C" cudaError_t matmul_cublas(const float *A, const float *B, float *C, int M, int N, int K,
                                     cudaStream_t stream) {
  int run;
  cudaError_t err = matmul_prepare(A, B, C, M, N, K, stream, &run);
  if (err != cudaSuccess || !run) return err;
  cublasHandle_t h;
  if ((err = handle(&h)) != cudaSuccess) return err;
  cublasStatus_t s = cublasSetStream(h, stream);
  if (s != CUBLAS_STATUS_SUCCESS) return from_cublas(s);
  // cuBLAS is column-major: a row-major R x S matrix is its column-major
  // transpose (S x R, leading dimension S). Row-major C = A * B is therefore
  // column-major C^T = B^T * A^T: m = N, n = M, k = K, with B^T (N x K, ld N)
  // first and A^T (K x M, ld K) second, C^T ld N.
  const float one = 1.0f, zero = 0.0f;
  s = cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, N, M, K, &one, B, N, A, K, &zero, C, N);
  return from_cublas(s);
}
