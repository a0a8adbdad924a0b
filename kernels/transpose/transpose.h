/* Out-of-place transpose of a row-major float matrix.
 *
 * `in` has ny rows of nx floats; `out` gets nx rows of ny floats:
 *   out[x * ny + y] = in[y * nx + x]   for 0 <= x < nx, 0 <= y < ny.
 * Any sizes (rectangular, not multiples of a tile). nx == 0 or ny == 0 is a
 * no-op success (NULL pointers accepted then); negative sizes, or NULL with a
 * non-empty matrix, give cudaErrorInvalidValue. `in` and `out` must not
 * overlap. Every function launches on `stream` and returns the launch error;
 * it never exits.
 *
 * The variants form a ladder (naive -> unrolled -> shared memory -> padded ->
 * vectorised); "row" variants read the input along rows (coalesced reads,
 * strided writes), "col" variants write the output along rows (strided reads,
 * coalesced writes).
 */
#ifndef KERNELS_TRANSPOSE_TRANSPOSE_H
#define KERNELS_TRANSPOSE_TRANSPOSE_H

#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

/* One element per thread, threads consecutive along a row of `in`. */
cudaError_t transpose_naive_row(const float *in, float *out, int nx, int ny, cudaStream_t stream);

/* One element per thread, threads consecutive along a row of `out`. */
cudaError_t transpose_naive_col(const float *in, float *out, int nx, int ny, cudaStream_t stream);

/* Four elements per thread, one block width apart along a row of `in`. */
cudaError_t transpose_unroll4_row(const float *in, float *out, int nx, int ny, cudaStream_t stream);

/* Four elements per thread, one block width apart along a row of `out`. */
cudaError_t transpose_unroll4_col(const float *in, float *out, int nx, int ny, cudaStream_t stream);

/* 32x32 tile staged in shared memory: coalesced reads and writes, but the
 * column read of the tile hits one bank 32 times (32-way bank conflicts). */
cudaError_t transpose_smem_tiled(const float *in, float *out, int nx, int ny, cudaStream_t stream);

/* As smem_tiled with the tile padded to 33 columns: no bank conflicts. */
cudaError_t transpose_smem_padded(const float *in, float *out, int nx, int ny, cudaStream_t stream);

/* The fastest variant on aligned shapes: 64x64 tiles, 16 elements in flight per thread.
 * When nx and ny are multiples of 4 and both pointers 16-byte aligned, rows
 * move as float4 (16-byte loads and stores), each thread transposes a 4x4
 * block in registers and the tile sits in XOR-swizzled shared memory (no bank
 * conflicts). Otherwise the same tiles move as scalars through a padded tile. */
cudaError_t transpose_tile64_vec(const float *in, float *out, int nx, int ny, cudaStream_t stream);

/* 32 x 64 tiles in the order of the rows of out (odd shapes: neighbouring segments of a row are
 * written close together, so the 32-byte sectors they share meet in L2). */
cudaError_t transpose_out_order(const float *in, float *out, int nx, int ny, cudaStream_t stream);

/* As out_order with 64 x 32 tiles (64 along a row of in): the better shape on an H200. */
cudaError_t transpose_out_order_wide(const float *in, float *out, int nx, int ny, cudaStream_t stream);

/* Library reference: cuBLAS sgeam (C = 1 * A^T + 0 * B) in the row-major
 * mapping above, through the current CUDA context's cuBLAS handle
 * (kernels/common/context_cache.h: made on the first call in that context);
 * every call sets its stream and modes. */
cudaError_t transpose_cublas(const float *in, float *out, int nx, int ny, cudaStream_t stream);

#ifdef __cplusplus
}
#endif

#endif
