// Argument handling shared by the matmul variants (CUDA C host code, .cu files only).
#ifndef KERNELS_MATMUL_MATMUL_ARGS_CUH
#define KERNELS_MATMUL_MATMUL_ARGS_CUH

#include <cuda_runtime.h>

#include "kernels/common/launch.cuh"

// Validates the arguments of C = A * B and deals with the empty cases: M or N
// zero is a no-op, K zero makes C zeros. *run is set when a kernel must run.
static inline cudaError_t matmul_prepare(const float *A, const float *B, float *C, int M, int N, int K,
                                         cudaStream_t stream, int *run) {
  *run = 0;
  if (M < 0 || N < 0 || K < 0) return cudaErrorInvalidValue;
  if (M == 0 || N == 0) return cudaSuccess;
  if (!C || (K > 0 && (!A || !B))) return cudaErrorInvalidValue;
  if (!is_aligned(A, sizeof(float)) || !is_aligned(B, sizeof(float)) || !is_aligned(C, sizeof(float)))
    return cudaErrorMisalignedAddress;
  if (K == 0) return cudaMemsetAsync(C, 0, (size_t)M * (size_t)N * sizeof(float), stream);
  *run = 1;
  return cudaSuccess;
}

// Groups of `per` covering n > 0 items.
static inline unsigned matmul_tiles(int n, int per) { return (unsigned)((n - 1) / per + 1); }

#endif
