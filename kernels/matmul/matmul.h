/* Single-precision matrix multiply C = A * B, all row-major:
 *   A is M x K, B is K x N, C is M x N;  C[i * N + j] = sum_k A[i * K + k] * B[k * N + j].
 *
 * Any M, N, K >= 0 (none needs to be a tile or vector multiple). M == 0 or
 * N == 0 is a no-op success; K == 0 sets C to zeros. Negative sizes, or NULL
 * for a matrix with elements, give cudaErrorInvalidValue. C must not overlap A
 * or B. Every function launches on `stream` and returns the launch error; it
 * never exits.
 *
 * The fp32 variants round every product and sum to float (ordinary fp32 FMA);
 * the matmul_tf32_* variants and matmul_cublas_tf32 do not: see their comments.
 */
#ifndef KERNELS_MATMUL_MATMUL_H
#define KERNELS_MATMUL_MATMUL_H

#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

/* One C element per thread, operands read straight from global memory. */
cudaError_t matmul_naive(const float *A, const float *B, float *C, int M, int N, int K, cudaStream_t stream);

/* Shared-memory tiling: 16x16 (or 32x32) threads each compute one C element
 * from 16x16 (32x32) tiles of A and B staged in shared memory. */
cudaError_t matmul_tiled16(const float *A, const float *B, float *C, int M, int N, int K, cudaStream_t stream);
cudaError_t matmul_tiled32(const float *A, const float *B, float *C, int M, int N, int K, cudaStream_t stream);

/* Register-blocked 2D tiling: 128x128 block tiles, k-steps of 8, 256 threads
 * each accumulating an 8x8 sub-block in registers; double-buffered shared
 * memory (A stored transposed and padded: no bank conflicts). Global loads and
 * C stores are float4 when K and N are multiples of 4 and A, B, C are 16-byte
 * aligned, scalar otherwise; edge tiles are zero-filled, so any size works. */
cudaError_t matmul_regblock(const float *A, const float *B, float *C, int M, int N, int K, cudaStream_t stream);

/* Warp tiling: the same 128x128x8 tiles and double buffer with 128 threads,
 * each warp a 64x64 tile, each thread 16x8 of C in registers (more FMAs per
 * shared-memory read). Same float4 / scalar paths and edge handling as
 * regblock. */
cudaError_t matmul_warptile(const float *A, const float *B, float *C, int M, int N, int K, cudaStream_t stream);

/* Pipelined: warptile's tiles and threads, A kept untransposed in shared memory, both tiles
 * filled by 16-byte cp.async copies in 4 stages of k-steps of 16 (64 KB of shared memory), the
 * barrier before each step's last FFMAs. Whole tiles only (M, N multiples of 128, K of 16, A, B
 * and C 16-byte aligned); any other shape is computed by matmul_warptile. Needs sm_80 or newer. */
cudaError_t matmul_pipelined(const float *A, const float *B, float *C, int M, int N, int K, cudaStream_t stream);

/* Wide: 128x256 tiles, 256 threads each accumulating 16x8 of C, A stored transposed in shared memory
 * (4-byte cp.async) and B as it is (16-byte cp.async) in 3 stages of k-steps of 8; each thread's
 * fragments of k + 1 are loaded while the FFMAs of k run (double-buffered registers), one block per SM
 * (cuBLAS's SIMT SGEMM shape). Whole tiles only (M a multiple of 128, N of 256, K of 8, A, B and C
 * 16-byte aligned); any other shape is computed by matmul_pipelined. Needs sm_80 or newer. */
cudaError_t matmul_wide(const float *A, const float *B, float *C, int M, int N, int K, cudaStream_t stream);

/* Split-K over wide's tiles and main loop, for products with too few tiles to fill the GPU: K is cut into
 * S parts (S = matmul_splitk_splits), tiles x S blocks each sum one part of a tile into a partial C, and a
 * second kernel adds the S partials in the fixed order 0, 1, ..., S - 1 and writes C: the result does not
 * depend on the order the blocks ran in (the same bits on every call for a given S), and it differs from
 * wide's only in how each dot product is grouped. Two launches; the S partial C's live in device memory of
 * the current CUDA context kept per stream (kernels/common/context_cache.h: allocated, or grown with a
 * synchronisation of `stream`, on the first call that needs more). S == 1 (enough tiles, or a shape wide
 * does not take whole, or a pointer not 16-byte aligned) is matmul_wide. Needs sm_80 or newer. */
cudaError_t matmul_splitk(const float *A, const float *B, float *C, int M, int N, int K, cudaStream_t stream);

/* *splits = S, the number of parts matmul_splitk cuts K into on the current device for 16-byte aligned
 * operands: the largest S of 1..4 with tiles x S <= the blocks of wide's kernel resident at once on the
 * device (SMs x blocks per SM, from the occupancy API), K / S a multiple of 8 and K / S >= 128; 1 when M
 * is not a multiple of 128, N of 256, K of 8, or any size is 0. Negative sizes or a NULL splits give
 * cudaErrorInvalidValue. */
cudaError_t matmul_splitk_splits(int M, int N, int K, int *splits);

/* TF32 tensor cores (WMMA m16n16k8), NOT an fp32 result: inputs are rounded to
 * TF32 (10-bit mantissa, relative error <= 2^-11), products accumulate in fp32.
 * Needs compute capability 8.0+ (else cudaErrorNotSupported). */
cudaError_t matmul_tf32_wmma(const float *A, const float *B, float *C, int M, int N, int K, cudaStream_t stream);

/* TF32 tensor cores through mma.sync (m16n8k8): 128x256 tiles of 8 warps of 64x64 (128x128 tiles of 4
 * such warps when N is not a multiple of 256, or the device has less than 147 KB of shared memory per
 * block), A's fragments read with ldmatrix, B's with conflict-free scalar loads, 3 stages of
 * 16-byte cp.async copies of k-steps of 32; inputs rounded to the nearest TF32 (cvt.rna) in registers,
 * fp32 accumulation. Whole tiles only (M a multiple of 128, N of 128, K of 32, A, B, C 16-byte aligned);
 * other shapes are computed by matmul_tf32_wmma. Needs compute capability 8.0+ (else
 * cudaErrorNotSupported). */
cudaError_t matmul_tf32_mma(const float *A, const float *B, float *C, int M, int N, int K, cudaStream_t stream);

/* TF32 on Hopper's warpgroup MMA (wgmma m64n256k8) fed by TMA: B is first transposed into B^T (N x K,
 * each element rounded to the nearest TF32) in device memory of the current context kept per stream
 * (as matmul_splitk's partials), then a persistent kernel of 128x256 tiles runs one producer warpgroup
 * (TMA copies into 4 stages, mbarriers) and two consumer warpgroups (wgmma from shared memory). wgmma
 * reads A from shared memory as fp32 bits and uses their TF32 part: A is truncated, not rounded. Whole
 * tiles only (M a multiple of 128, N of 256, K of 32 and at most 4 194 240, fewer than 2^31 tiles, A, B,
 * C 16-byte aligned) on a device of compute capability 9.0 (the code is sm_90a); anything else is computed
 * by matmul_tf32_mma. Errors of the workspace or the TMA descriptors are returned (a driver without
 * cuTensorMapEncodeTiled: cudaErrorNotSupported). */
cudaError_t matmul_tf32_wgmma(const float *A, const float *B, float *C, int M, int N, int K, cudaStream_t stream);

/* wgmma without the transpose: each block computes a 128 (n) x 256 (m) tile of C^T = B^T A^T, wgmma's
 * first operand (B^T) loaded from B's shared-memory tile into registers and rounded to the nearest TF32
 * there, its second (A^T, which is A's natural k-contiguous layout) read from shared memory by wgmma
 * (truncated), both tiles copied by TMA. Whole tiles only (M a multiple of 256, N of 128, K of 32, A, B,
 * C 16-byte aligned) on compute capability 9.0; anything else is computed by matmul_tf32_wgmma. */
cudaError_t matmul_tf32_wgmma_rs(const float *A, const float *B, float *C, int M, int N, int K, cudaStream_t stream);

/* The persistent grid that matmul_tf32_wgmma (rs == 0) or matmul_tf32_wgmma_rs (rs != 0) launches for M x N x K
 * with 16-byte aligned operands on the current device: *tiles of C (128 x 256; rs: 256 x 128) walked by *blocks
 * blocks, min(tiles, SMs); both 0 when that call computes through its fallback instead (not compute capability
 * 9.0, not whole tiles, a size 0, ...). Negative sizes or a NULL pointer give cudaErrorInvalidValue. */
cudaError_t matmul_tf32_wgmma_grid(int M, int N, int K, int rs, unsigned long long *tiles, unsigned *blocks);

/* Library reference: cuBLAS sgemm in pedantic fp32 (CUBLAS_PEDANTIC_MATH: no
 * TF32, no reduced-precision or emulated paths), mapped to row-major as
 * C^T = B^T * A^T, through the current CUDA context's cuBLAS handle
 * (kernels/common/context_cache.h: made on the first call in that context);
 * every call sets its stream and modes. */
cudaError_t matmul_cublas(const float *A, const float *B, float *C, int M, int N, int K, cudaStream_t stream);

/* Library reference of the TF32 steps: cuBLAS sgemm with CUBLAS_TF32_TENSOR_OP_MATH (tensor cores,
 * inputs reduced to TF32, fp32 accumulation), the same mapping and handle as matmul_cublas. */
cudaError_t matmul_cublas_tf32(const float *A, const float *B, float *C, int M, int N, int K, cudaStream_t stream);

#ifdef __cplusplus
}
#endif

#endif
