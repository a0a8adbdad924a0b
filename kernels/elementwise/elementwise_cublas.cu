// Library reference: y = alpha * x + y through cuBLAS saxpy, behind the same C API.
#include <cublas_v2.h>

#include "kernels/common/launch.cuh"
#include "kernels/elementwise/elementwise.h"

// Created on first use (a benchmark's warm-up), kept for the life of the process.
static cublasHandle_t g_handle;

static cudaError_t from_cublas(cublasStatus_t s) {
  switch (s) {
    case CUBLAS_STATUS_SUCCESS: return cudaSuccess;
    case CUBLAS_STATUS_INVALID_VALUE: return cudaErrorInvalidValue;
    case CUBLAS_STATUS_ALLOC_FAILED: return cudaErrorMemoryAllocation;
    case CUBLAS_STATUS_NOT_INITIALIZED: return cudaErrorInitializationError;
    case CUBLAS_STATUS_ARCH_MISMATCH: return cudaErrorNoKernelImageForDevice;
    default: {
      cudaError_t err = cudaGetLastError();  // a failed launch inside cuBLAS says more than its status
      return err != cudaSuccess ? err : cudaErrorUnknown;
    }
  }
}

extern "C" cudaError_t ew_saxpy_cublas(float alpha, const float *x, float *y, size_t n, cudaStream_t stream) {
  if (n == 0) return cudaSuccess;
  if (!x || !y) return cudaErrorInvalidValue;
  if (!is_aligned(x, sizeof(float)) || !is_aligned(y, sizeof(float))) return cudaErrorMisalignedAddress;
  cudaError_t err;
  if (!g_handle) {
    cublasHandle_t h;
    if ((err = from_cublas(cublasCreate(&h))) != cudaSuccess) return err;
    // Host is cuBLAS's default pointer mode; set it anyway so alpha's home is explicit.
    if ((err = from_cublas(cublasSetPointerMode(h, CUBLAS_POINTER_MODE_HOST))) != cudaSuccess) {
      cublasDestroy(h);
      return err;
    }
    g_handle = h;
  }
  if ((err = from_cublas(cublasSetStream(g_handle, stream))) != cudaSuccess) return err;
  if ((err = from_cublas(cublasSaxpy_64(g_handle, (int64_t)n, &alpha, x, 1, y, 1))) != cudaSuccess) return err;
  return cudaGetLastError();
}
