// Transpose kernels: naive, unrolled, shared-memory tiled, padded, 64x64 vectorised, and tiles
// in the order of the output's rows.
//
// Every kernel but out_order walks its tiles with grid-stride loops in both grid
// dimensions, so a grid capped at the device's limits still covers any nx, ny
// (out_order takes one tile per block and its wrapper launches as often as the
// grid's limits need); every element access is bounds-checked, so no size needs
// to be a tile multiple.
#include "kernels/transpose/transpose.h"
#include "kernels/common/launch.cuh"

static const int kTile = 32; // ladder tiles are 32 wide: one warp per row segment
static const int kRows = 8;  // ladder blocks are 32 x 8 threads (256)

// Groups of `per` covering n > 0 items: the tile count a kernel's grid-stride loop runs to
// (unused when n <= 0: the launch returns before).
static unsigned tiles(int n, int per) { return n > 0 ? (unsigned)((n - 1) / per + 1) : 1u; }

// A 2D grid of up to bx x by blocks, capped at the device's grid limits.
static cudaError_t grid_2d(unsigned bx, unsigned by, dim3 *grid) {
  int dev = 0, max_x = 0, max_y = 0;
  cudaError_t err = cudaGetDevice(&dev);
  if (err == cudaSuccess) err = cudaDeviceGetAttribute(&max_x, cudaDevAttrMaxGridDimX, dev);
  if (err == cudaSuccess) err = cudaDeviceGetAttribute(&max_y, cudaDevAttrMaxGridDimY, dev);
  if (err != cudaSuccess) return err;
  *grid = dim3(bx < (unsigned)max_x ? bx : (unsigned)max_x, by < (unsigned)max_y ? by : (unsigned)max_y, 1);
  return cudaSuccess;
}

// ---------------------------------------------------------------------------
// Naive: one element per thread. `row` has threadIdx.x along x (a row of `in`),
// `col` has threadIdx.x along y (a row of `out`). Grid x/y count tiles of the
// dimension that threadIdx.x/y run along.

static __global__ void naive_row_kernel(const float *in, float *out, int nx, int ny, unsigned tiles_x,
                                        unsigned tiles_y) {
  for (unsigned by = blockIdx.y; by < tiles_y; by += gridDim.y)
    for (unsigned bx = blockIdx.x; bx < tiles_x; bx += gridDim.x) {
      size_t x = (size_t)bx * kTile + threadIdx.x, y = (size_t)by * kRows + threadIdx.y;
      if (x < (size_t)nx && y < (size_t)ny) out[x * ny + y] = in[y * nx + x];
    }
}

static __global__ void naive_col_kernel(const float *in, float *out, int nx, int ny, unsigned tiles_y,
                                        unsigned tiles_x) {
  for (unsigned bx = blockIdx.y; bx < tiles_x; bx += gridDim.y)
    for (unsigned by = blockIdx.x; by < tiles_y; by += gridDim.x) {
      size_t y = (size_t)by * kTile + threadIdx.x, x = (size_t)bx * kRows + threadIdx.y;
      if (x < (size_t)nx && y < (size_t)ny) out[x * ny + y] = in[y * nx + x];
    }
}

// ---------------------------------------------------------------------------
// Unrolled by 4: a block covers 4 x 32 elements along threadIdx.x; each thread
// issues its four loads before its four stores (more requests in flight). Each
// element has its own bounds check, so ragged tails are done, not dropped.

static __global__ void unroll4_row_kernel(const float *__restrict__ in, float *__restrict__ out, int nx, int ny,
                                          unsigned tiles_x, unsigned tiles_y) {
  for (unsigned by = blockIdx.y; by < tiles_y; by += gridDim.y)
    for (unsigned bx = blockIdx.x; bx < tiles_x; bx += gridDim.x) {
      size_t x0 = (size_t)bx * 4 * kTile + threadIdx.x, y = (size_t)by * kRows + threadIdx.y;
      if (y >= (size_t)ny) continue;
      float v[4];
#pragma unroll
      for (int k = 0; k < 4; k++) {
        size_t x = x0 + (size_t)k * kTile;
        v[k] = x < (size_t)nx ? in[y * nx + x] : 0.f;
      }
#pragma unroll
      for (int k = 0; k < 4; k++) {
        size_t x = x0 + (size_t)k * kTile;
        if (x < (size_t)nx) out[x * ny + y] = v[k];
      }
    }
}

static __global__ void unroll4_col_kernel(const float *__restrict__ in, float *__restrict__ out, int nx, int ny,
                                          unsigned tiles_y, unsigned tiles_x) {
  for (unsigned bx = blockIdx.y; bx < tiles_x; bx += gridDim.y)
    for (unsigned by = blockIdx.x; by < tiles_y; by += gridDim.x) {
      size_t y0 = (size_t)by * 4 * kTile + threadIdx.x, x = (size_t)bx * kRows + threadIdx.y;
      if (x >= (size_t)nx) continue;
      float v[4];
#pragma unroll
      for (int k = 0; k < 4; k++) {
        size_t y = y0 + (size_t)k * kTile;
        v[k] = y < (size_t)ny ? in[y * nx + x] : 0.f;
      }
#pragma unroll
      for (int k = 0; k < 4; k++) {
        size_t y = y0 + (size_t)k * kTile;
        if (y < (size_t)ny) out[x * ny + y] = v[k];
      }
    }
}

// ---------------------------------------------------------------------------
// Shared-memory tile, 32 x 32, block 32 x 8 (4 rows per thread). Rows of `in`
// are read and rows of `out` written, both coalesced; the tile is read down a
// column. PAD = 0: tile[tx][j] is bank j for every tx (32-way conflict);
// PAD = 1: the row stride is 33, so tile[tx][j] is bank (tx + j) % 32.

template <int PAD>
static __global__ void smem_tile_kernel(const float *__restrict__ in, float *__restrict__ out, int nx, int ny,
                                        unsigned tiles_x, unsigned tiles_y) {
  __shared__ float tile[kTile][kTile + PAD];
  const int tx = threadIdx.x, ty = threadIdx.y;
  for (unsigned by = blockIdx.y; by < tiles_y; by += gridDim.y)
    for (unsigned bx = blockIdx.x; bx < tiles_x; bx += gridDim.x) {
      size_t x0 = (size_t)bx * kTile, y0 = (size_t)by * kTile;
#pragma unroll
      for (int j = 0; j < kTile; j += kRows) {
        size_t x = x0 + tx, y = y0 + ty + j;
        if (x < (size_t)nx && y < (size_t)ny) tile[ty + j][tx] = in[y * nx + x];
      }
      __syncthreads();
#pragma unroll
      for (int j = 0; j < kTile; j += kRows) {
        size_t x = x0 + ty + j, y = y0 + tx; // row x of `out`, column y
        if (x < (size_t)nx && y < (size_t)ny) out[x * ny + y] = tile[tx][ty + j];
      }
      __syncthreads(); // the next tile reuses `tile`
    }
}

// ---------------------------------------------------------------------------
// Fastest: 64 x 64 tiles, 256 threads, 16 floats in flight per thread.

static const int kBig = 64;

// Vector path (nx, ny multiples of 4, 16-byte-aligned pointers): thread t loads
// the 4x4 block at rows 4a..4a+3, columns 4b..4b+3 of the tile as four float4
// (a = t / 16, b = t % 16: 16 threads cover a 256-byte row segment), transposes
// it in registers and stores four float4 rows of the transposed tile T[x][y].
// T's 16-byte chunks are XOR-swizzled: chunk c of row r lives at c ^ (r/4 % 8),
// so each quarter-warp's 8 float4 accesses (the unit of shared-memory
// scheduling for 16-byte accesses) hit 8 distinct bank groups, for both the
// stores above (fixed a, b = 0..7) and the loads below (fixed row, c = 0..7).
static __global__ void __launch_bounds__(256) tile64_vec_kernel(const float *__restrict__ in, float *__restrict__ out,
                                                                int nx, int ny, unsigned tiles_x, unsigned tiles_y) {
  __shared__ __align__(16) float T[kBig * kBig];
  const int t = threadIdx.x;
  const int a = t >> 4, b = t & 15;
  for (unsigned by = blockIdx.y; by < tiles_y; by += gridDim.y)
    for (unsigned bx = blockIdx.x; bx < tiles_x; bx += gridDim.x) {
      size_t x0 = (size_t)bx * kBig, y0 = (size_t)by * kBig;
      size_t xin = x0 + 4 * b; // nx % 4 == 0: the float4 is all in or all out
      float4 v[4];
#pragma unroll
      for (int i = 0; i < 4; i++) {
        size_t y = y0 + 4 * a + i;
        v[i] = (xin < (size_t)nx && y < (size_t)ny) ? *(const float4 *)(in + y * nx + xin)
                                                    : make_float4(0.f, 0.f, 0.f, 0.f);
      }
      int chunk = a ^ (b & 7); // rows 4b..4b+3 of T share r/4 = b
      *(float4 *)&T[(4 * b + 0) * kBig + 4 * chunk] = make_float4(v[0].x, v[1].x, v[2].x, v[3].x);
      *(float4 *)&T[(4 * b + 1) * kBig + 4 * chunk] = make_float4(v[0].y, v[1].y, v[2].y, v[3].y);
      *(float4 *)&T[(4 * b + 2) * kBig + 4 * chunk] = make_float4(v[0].z, v[1].z, v[2].z, v[3].z);
      *(float4 *)&T[(4 * b + 3) * kBig + 4 * chunk] = make_float4(v[0].w, v[1].w, v[2].w, v[3].w);
      __syncthreads();
      // Row r of T is row x0 + r of `out`; thread t writes its chunk c = t % 16.
      const int c = t & 15;
#pragma unroll
      for (int i = 0; i < 4; i++) {
        int r = (t >> 4) + 16 * i;
        float4 w = *(const float4 *)&T[r * kBig + 4 * (c ^ ((r >> 2) & 7))];
        size_t x = x0 + r, y = y0 + 4 * c;
        if (x < (size_t)nx && y < (size_t)ny) *(float4 *)(out + x * ny + y) = w;
      }
      __syncthreads();
    }
}

// Scalar path: the same 64 x 64 tiles as 32 x 8 threads, 16 elements each,
// through a tile padded to 65 columns (bank (row + col) % 32: conflict-free
// both ways).
static __global__ void __launch_bounds__(256)
    tile64_scalar_kernel(const float *__restrict__ in, float *__restrict__ out, int nx, int ny, unsigned tiles_x,
                         unsigned tiles_y) {
  __shared__ float T[kBig][kBig + 1];
  const int tx = threadIdx.x & 31, ty = threadIdx.x >> 5;
  for (unsigned by = blockIdx.y; by < tiles_y; by += gridDim.y)
    for (unsigned bx = blockIdx.x; bx < tiles_x; bx += gridDim.x) {
      size_t x0 = (size_t)bx * kBig, y0 = (size_t)by * kBig;
      float v[16]; // all 16 loads are issued before the first shared-memory store
#pragma unroll
      for (int i = 0; i < 8; i++)
#pragma unroll
        for (int h = 0; h < 2; h++) {
          size_t x = x0 + tx + 32 * h, y = y0 + ty + 8 * i;
          v[2 * i + h] = (x < (size_t)nx && y < (size_t)ny) ? in[y * nx + x] : 0.f;
        }
#pragma unroll
      for (int i = 0; i < 8; i++)
#pragma unroll
        for (int h = 0; h < 2; h++) T[ty + 8 * i][tx + 32 * h] = v[2 * i + h];
      __syncthreads();
#pragma unroll
      for (int i = 0; i < 8; i++)
#pragma unroll
        for (int h = 0; h < 2; h++) {
          size_t x = x0 + ty + 8 * i, y = y0 + tx + 32 * h; // row x of `out`, column y
          if (x < (size_t)nx && y < (size_t)ny) out[x * ny + y] = T[tx + 32 * h][ty + 8 * i];
        }
      __syncthreads();
    }
}

// ---------------------------------------------------------------------------
// Block order along the output's rows: 32-wide, 64-tall tiles of `in` (a 32 x 64 piece of 32
// rows of `out`), 32 x 16 threads, 4 elements each, through a tile padded to 33 columns; the
// grid's x runs over the tiles down `in` (along a row of `out`), so blocks launched one after
// another write neighbouring segments of the same rows of `out`. With rows that are not a
// multiple of 8 floats (8191 x 4099), a 32-byte sector is shared by two segments: written close
// together, the two halves meet in L2; the x-first order of smem_padded left them far apart and
// ran at 0.71 x sgeam on an H200 in a prototype (this order: 0.99; on an H100 1.16; docs/RESULTS.md).
// out_order_wide: the same with 64-wide, 32-tall tiles (8 rows of `out` per thread instead of 4
// rows of 2 columns): in that prototype 1.005-1.020 x sgeam on an H200 at odd shapes, where
// 32 x 64 reached 0.98-0.99, but 0.95 on an H100, where 32 x 64 reached 1.14-1.16. Both stay,
// each the best on one GPU.

static const int kOutRows = 16;

// One tile per block and 32-bit coordinates: the same kernel with grid-stride loops and 64-bit
// coordinates (as the kernels above) ran 17 % slower on an H200 (a short kernel of 4 loads per
// thread is bound by its instruction latency); the wrapper launches again for more than 65535
// tiles along x. Coordinates are unsigned: a tile's last one is at most INT_MAX + 63.
// W x H: the tile's width along a row of `in` and its height (both multiples of 32 and kOutRows).
template <int W, int H>
static __global__ void __launch_bounds__(32 * kOutRows)
    out_order_kernel(const float *__restrict__ in, float *__restrict__ out, int nx, int ny, unsigned bx0) {
  __shared__ float T[H][W + 1];
  const unsigned tx = threadIdx.x, ty = threadIdx.y;
  const unsigned x0 = (bx0 + blockIdx.y) * W, y0 = blockIdx.x * H;
  float v[W / 32][H / kOutRows]; // all loads are issued before the first shared-memory store
#pragma unroll
  for (int i = 0; i < W / 32; i++)
#pragma unroll
    for (int j = 0; j < H / kOutRows; j++) {
      unsigned x = x0 + tx + 32 * i, y = y0 + ty + kOutRows * j;
      v[i][j] = (x < (unsigned)nx && y < (unsigned)ny) ? __ldg(in + (size_t)y * nx + x) : 0.f;
    }
#pragma unroll
  for (int i = 0; i < W / 32; i++)
#pragma unroll
    for (int j = 0; j < H / kOutRows; j++) T[ty + kOutRows * j][tx + 32 * i] = v[i][j];
  __syncthreads();
#pragma unroll
  for (int h = 0; h < H / 32; h++)
#pragma unroll
    for (int j = 0; j < W / kOutRows; j++) {
      unsigned x = x0 + ty + kOutRows * j, y = y0 + tx + 32 * h; // row x of `out`, column y
      if (x < (unsigned)nx && y < (unsigned)ny) out[(size_t)x * ny + y] = T[tx + 32 * h][ty + kOutRows * j];
    }
}

// ---------------------------------------------------------------------------
// Host wrappers.

// Bad arguments are errors; an empty matrix is a successful no-op.
static cudaError_t check_args(const float *in, const float *out, int nx, int ny) {
  if (nx < 0 || ny < 0) return cudaErrorInvalidValue;
  if (nx == 0 || ny == 0) return cudaSuccess;
  if (!in || !out) return cudaErrorInvalidValue;
  if (!is_aligned(in, sizeof(float)) || !is_aligned(out, sizeof(float))) return cudaErrorMisalignedAddress;
  return cudaSuccess;
}

// Checks the arguments, then launches `kernel` with `block` threads on a grid of
// gx x gy tiles (capped at the device limits; the kernels loop over the rest).
template <typename Kernel>
static cudaError_t launch(Kernel kernel, dim3 block, unsigned gx, unsigned gy, const float *in, float *out, int nx,
                          int ny, cudaStream_t stream) {
  cudaError_t err = check_args(in, out, nx, ny);
  if (err != cudaSuccess || nx == 0 || ny == 0) return err;
  dim3 grid;
  if ((err = grid_2d(gx, gy, &grid)) != cudaSuccess) return err;
  kernel<<<grid, block, 0, stream>>>(in, out, nx, ny, gx, gy);
  return cudaGetLastError();
}

extern "C" cudaError_t transpose_naive_row(const float *in, float *out, int nx, int ny, cudaStream_t stream) {
  return launch(naive_row_kernel, dim3(kTile, kRows), tiles(nx, kTile), tiles(ny, kRows), in, out, nx, ny, stream);
}

extern "C" cudaError_t transpose_naive_col(const float *in, float *out, int nx, int ny, cudaStream_t stream) {
  return launch(naive_col_kernel, dim3(kTile, kRows), tiles(ny, kTile), tiles(nx, kRows), in, out, nx, ny, stream);
}

extern "C" cudaError_t transpose_unroll4_row(const float *in, float *out, int nx, int ny, cudaStream_t stream) {
  return launch(unroll4_row_kernel, dim3(kTile, kRows), tiles(nx, 4 * kTile), tiles(ny, kRows), in, out, nx, ny,
                stream);
}

extern "C" cudaError_t transpose_unroll4_col(const float *in, float *out, int nx, int ny, cudaStream_t stream) {
  return launch(unroll4_col_kernel, dim3(kTile, kRows), tiles(ny, 4 * kTile), tiles(nx, kRows), in, out, nx, ny,
                stream);
}

extern "C" cudaError_t transpose_smem_tiled(const float *in, float *out, int nx, int ny, cudaStream_t stream) {
  return launch(smem_tile_kernel<0>, dim3(kTile, kRows), tiles(nx, kTile), tiles(ny, kTile), in, out, nx, ny, stream);
}

extern "C" cudaError_t transpose_smem_padded(const float *in, float *out, int nx, int ny, cudaStream_t stream) {
  return launch(smem_tile_kernel<1>, dim3(kTile, kRows), tiles(nx, kTile), tiles(ny, kTile), in, out, nx, ny, stream);
}

// Grid x over the tiles along y (a row of `out`: at most 2^26, within the grid's x limit), grid
// y over those along x, 65535 (the y limit) per launch.
template <int W, int H>
static cudaError_t out_order(const float *in, float *out, int nx, int ny, cudaStream_t stream) {
  cudaError_t err = check_args(in, out, nx, ny);
  if (err != cudaSuccess || nx == 0 || ny == 0) return err;
  const unsigned tiles_y = tiles(ny, H), tiles_x = tiles(nx, W), max_y = 65535;
  for (unsigned bx0 = 0; bx0 < tiles_x && err == cudaSuccess; bx0 += max_y) {
    unsigned gy = tiles_x - bx0 < max_y ? tiles_x - bx0 : max_y;
    out_order_kernel<W, H><<<dim3(tiles_y, gy), dim3(32, kOutRows), 0, stream>>>(in, out, nx, ny, bx0);
    err = cudaGetLastError();
  }
  return err;
}

extern "C" cudaError_t transpose_out_order(const float *in, float *out, int nx, int ny, cudaStream_t stream) {
  return out_order<32, 64>(in, out, nx, ny, stream);
}

extern "C" cudaError_t transpose_out_order_wide(const float *in, float *out, int nx, int ny, cudaStream_t stream) {
  return out_order<64, 32>(in, out, nx, ny, stream);
}

extern "C" cudaError_t transpose_tile64_vec(const float *in, float *out, int nx, int ny, cudaStream_t stream) {
  int vec = nx % 4 == 0 && ny % 4 == 0 && is_aligned(in, 16) && is_aligned(out, 16);
  return launch(vec ? tile64_vec_kernel : tile64_scalar_kernel, dim3(256), tiles(nx, kBig), tiles(ny, kBig), in, out,
                nx, ny, stream);
}
