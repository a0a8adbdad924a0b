// TF32 tensor-core matmul through WMMA (m16n16k8): inputs rounded to TF32,
// accumulation in fp32. Not an fp32 result; tested with a TF32 tolerance.
#include <mma.h>

#include "kernels/matmul/matmul.h"
#include "kernels/matmul/matmul_args.cuh"

// Block tile 64 x 64, k-step 16, 4 warps as 2 x 2, each warp a 32 x 32 tile
// (2 x 2 fragments of 16 x 16). Tiles of A and B are staged in shared memory,
// zero-filled past the edges; C goes through shared memory so that edge tiles
// can be stored element by element.
#define TC_BM 64
#define TC_BN 64
#define TC_BK 16
#define TC_THREADS 128
// Row strides (floats): multiples of 8 keep every fragment pointer 32-byte
// aligned as WMMA requires, and the +8 shifts rows across banks.
#define TC_LDA (TC_BK + 8)
#define TC_LDB (TC_BN + 8)
#define TC_LDC (TC_BN + 8)

static __global__ void __launch_bounds__(TC_THREADS)
    tf32_wmma_kernel(const float *__restrict__ A, const float *__restrict__ B, float *__restrict__ C, unsigned M,
                     unsigned N, unsigned K, unsigned tiles_n, unsigned long long tiles) {
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 800
  using namespace nvcuda;
  __shared__ __align__(32) float As[TC_BM * TC_LDA];
  __shared__ __align__(32) float Bs[TC_BK * TC_LDB];
  __shared__ __align__(32) float Cs[TC_BM * TC_LDC];
  const int t = threadIdx.x, warp = t >> 5;
  const int wm = 32 * (warp >> 1), wn = 32 * (warp & 1);

  for (unsigned long long tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
    const unsigned m0 = (unsigned)(tile / tiles_n) * TC_BM, n0 = (unsigned)(tile % tiles_n) * TC_BN;
    wmma::fragment<wmma::accumulator, 16, 16, 8, float> acc[2][2];
#pragma unroll
    for (int i = 0; i < 2; i++)
#pragma unroll
      for (int j = 0; j < 2; j++) wmma::fill_fragment(acc[i][j], 0.f);

    for (unsigned k0 = 0; k0 < K; k0 += TC_BK) {
      // 1024 elements of each tile, 8 per thread; consecutive threads read
      // consecutive columns (coalesced).
#pragma unroll
      for (int i = 0; i < 8; i++) {
        int e = t + TC_THREADS * i;
        unsigned r = m0 + e / TC_BK, c = k0 + e % TC_BK;
        As[(e / TC_BK) * TC_LDA + e % TC_BK] = (r < M && c < K) ? A[(size_t)r * K + c] : 0.f;
        r = k0 + e / TC_BN, c = n0 + e % TC_BN;
        Bs[(e / TC_BN) * TC_LDB + e % TC_BN] = (r < K && c < N) ? B[(size_t)r * N + c] : 0.f;
      }
      __syncthreads();
#pragma unroll
      for (int kk = 0; kk < TC_BK; kk += 8) {
        wmma::fragment<wmma::matrix_a, 16, 16, 8, wmma::precision::tf32, wmma::row_major> fa[2];
        wmma::fragment<wmma::matrix_b, 16, 16, 8, wmma::precision::tf32, wmma::row_major> fb[2];
#pragma unroll
        for (int i = 0; i < 2; i++) {
          wmma::load_matrix_sync(fa[i], &As[(wm + 16 * i) * TC_LDA + kk], TC_LDA);
          wmma::load_matrix_sync(fb[i], &Bs[kk * TC_LDB + wn + 16 * i], TC_LDB);
          // Round to nearest TF32 (relative error <= 2^-11) rather than let
          // the tensor cores truncate the low mantissa bits.
#pragma unroll
          for (int e = 0; e < fa[i].num_elements; e++) fa[i].x[e] = wmma::__float_to_tf32(fa[i].x[e]);
#pragma unroll
          for (int e = 0; e < fb[i].num_elements; e++) fb[i].x[e] = wmma::__float_to_tf32(fb[i].x[e]);
        }
#pragma unroll
        for (int i = 0; i < 2; i++)
#pragma unroll
          for (int j = 0; j < 2; j++) wmma::mma_sync(acc[i][j], fa[i], fb[j], acc[i][j]);
      }
      __syncthreads();
    }

#pragma unroll
    for (int i = 0; i < 2; i++)
#pragma unroll
      for (int j = 0; j < 2; j++)
        wmma::store_matrix_sync(&Cs[(wm + 16 * i) * TC_LDC + wn + 16 * j], acc[i][j], TC_LDC, wmma::mem_row_major);
    __syncthreads();
    for (int e = t; e < TC_BM * TC_BN; e += TC_THREADS) {
      unsigned r = m0 + e / TC_BN, c = n0 + e % TC_BN;
      if (r < M && c < N) C[(size_t)r * N + c] = Cs[(e / TC_BN) * TC_LDC + e % TC_BN];
    }
    __syncthreads(); // Cs is rewritten by the next tile
  }
#endif
}

extern "C" cudaError_t matmul_tf32_wmma(const float *A, const float *B, float *C, int M, int N, int K,
                                        cudaStream_t stream) {
  int dev = 0, major = 0;
  cudaError_t err = cudaGetDevice(&dev);
  if (err == cudaSuccess) err = cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev);
  if (err != cudaSuccess) return err;
  if (major < 8) return cudaErrorNotSupported;
  int run;
  if ((err = matmul_prepare(A, B, C, M, N, K, stream, &run)) != cudaSuccess || !run) return err;
  unsigned tn = matmul_tiles(N, TC_BN);
  unsigned long long tiles = (unsigned long long)matmul_tiles(M, TC_BM) * tn;
  unsigned grid;
  if ((err = grid_for(tiles, 1, &grid)) != cudaSuccess) return err;
  tf32_wmma_kernel<<<grid, TC_THREADS, 0, stream>>>(A, B, C, M, N, K, tn, tiles);
  return cudaGetLastError();
}
