// fp32 matmul: naive, shared-memory tiled (16, 32), register-blocked 128x128x8, warp-tiled and pipelined
// (cp.async, 128x128x16). The wide kernel and split-K are in matmul_wide.cu.
//
// Kernels walk their tiles with grid-stride loops, so grids capped at the
// device's limits still cover any M, N; loads outside A or B read as zero and
// stores outside C are skipped, so no size needs to be a tile multiple.
#include "kernels/matmul/matmul.h"
#include "kernels/matmul/matmul_args.cuh"

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
// Naive: thread (x, y) of a 16 x 16 block computes C[row][col] with its whole
// dot product read from global memory.

static const int kNaive = 16;

static __global__ void naive_kernel(const float *A, const float *B, float *C, int M, int N, int K, unsigned tiles_n,
                                    unsigned tiles_m) {
  for (unsigned by = blockIdx.y; by < tiles_m; by += gridDim.y)
    for (unsigned bx = blockIdx.x; bx < tiles_n; bx += gridDim.x) {
      size_t row = (size_t)by * kNaive + threadIdx.y, col = (size_t)bx * kNaive + threadIdx.x;
      if (row >= (size_t)M || col >= (size_t)N) continue;
      float acc = 0.f;
      for (int k = 0; k < K; k++) acc += A[row * K + k] * B[(size_t)k * N + col];
      C[row * N + col] = acc;
    }
}

// ---------------------------------------------------------------------------
// Tiled: a T x T block computes a T x T tile of C, staging T x T tiles of A and
// B in shared memory (each global element is then read by one thread instead
// of T). Elements past the edges of A and B are stored as zeros.

template <int T>
static __global__ void tiled_kernel(const float *__restrict__ A, const float *__restrict__ B, float *__restrict__ C,
                                    int M, int N, int K, unsigned tiles_n, unsigned tiles_m) {
  __shared__ float As[T][T], Bs[T][T];
  const int tx = threadIdx.x, ty = threadIdx.y;
  for (unsigned by = blockIdx.y; by < tiles_m; by += gridDim.y)
    for (unsigned bx = blockIdx.x; bx < tiles_n; bx += gridDim.x) {
      size_t row = (size_t)by * T + ty, col = (size_t)bx * T + tx;
      float acc = 0.f;
      for (unsigned k0 = 0; k0 < (unsigned)K; k0 += T) { // unsigned: k0 + T cannot overflow
        unsigned ka = k0 + tx, kb = k0 + ty;
        As[ty][tx] = (row < (size_t)M && ka < (unsigned)K) ? A[row * K + ka] : 0.f;
        Bs[ty][tx] = (kb < (unsigned)K && col < (size_t)N) ? B[(size_t)kb * N + col] : 0.f;
        __syncthreads();
#pragma unroll
        for (int k = 0; k < T; k++) acc += As[ty][k] * Bs[k][tx];
        __syncthreads();
      }
      if (row < (size_t)M && col < (size_t)N) C[row * N + col] = acc;
    }
}

// ---------------------------------------------------------------------------
// Register-blocked: block tile BM x BN, k-step BK, 256 threads, 8x8 C elements
// per thread (64 FMAs per 4 shared-memory float4 loads).
//
// Compute layout: 8 warps as 4 (m) x 2 (n), warp tile 32 x 64; lane = 8 * lm + ln
// owns rows tm + {0..3, 16..19} and columns tn + {0..3, 32..35}, where
// tm = 32 * (warp / 2) + 4 * lm, tn = 64 * (warp % 2) + 4 * ln. A warp's A
// fragment load touches 4 distinct float4 (broadcast), its B fragment load 8
// consecutive float4 (128 bytes): no bank conflicts.
//
// Load layout: each thread fetches one float4 of A (row t / 2, k 4 * (t % 2)) and
// one of B (k t / 32, columns 4 * (t % 32)) per k-step. A is stored transposed
// (As[k][m], so fragments are float4 along m); its rows are padded to BM + 4
// so the two k-halves of a warp's scalar stores land in different banks.
//
// Pipeline: two shared-memory buffers; the next k-step's global loads are
// issued before the current step's FMAs and stored to the other buffer after
// them, so one __syncthreads per k-step suffices.

#define RB_BM 128
#define RB_BN 128
#define RB_BK 8
#define RB_THREADS 256

// Indices are unsigned in this kernel: a tile may reach up to 127 past M or N,
// which must not overflow an int when M or N is close to INT_MAX.

// One float4 of A: row `row`, columns k..k+3 (zero past the edges).
template <bool VEC>
static __device__ __forceinline__ float4 load_a(const float *__restrict__ A, unsigned M, unsigned K, unsigned row,
                                                unsigned k) {
  float4 v = make_float4(0.f, 0.f, 0.f, 0.f);
  if (row < M) {
    const float *p = A + (size_t)row * K + k;
    if (VEC) { // K % 4 == 0: the float4 is all in or all out
      if (k < K) v = *(const float4 *)p;
    } else {
      if (k < K) v.x = p[0];
      if (k + 1 < K) v.y = p[1];
      if (k + 2 < K) v.z = p[2];
      if (k + 3 < K) v.w = p[3];
    }
  }
  return v;
}

// One float4 of B: row k, columns col..col+3 (zero past the edges).
template <bool VEC>
static __device__ __forceinline__ float4 load_b(const float *__restrict__ B, unsigned K, unsigned N, unsigned k,
                                                unsigned col) {
  float4 v = make_float4(0.f, 0.f, 0.f, 0.f);
  if (k < K) {
    const float *p = B + (size_t)k * N + col;
    if (VEC) { // N % 4 == 0
      if (col < N) v = *(const float4 *)p;
    } else {
      if (col < N) v.x = p[0];
      if (col + 1 < N) v.y = p[1];
      if (col + 2 < N) v.z = p[2];
      if (col + 3 < N) v.w = p[3];
    }
  }
  return v;
}

// Columns col..col+3 of row `row` of C (the part inside C).
template <bool VEC>
static __device__ __forceinline__ void store_c(float *__restrict__ C, unsigned N, unsigned row, unsigned col,
                                               float4 v) {
  float *p = C + (size_t)row * N + col;
  if (VEC) {
    if (col < N) *(float4 *)p = v;
  } else {
    if (col < N) p[0] = v.x;
    if (col + 1 < N) p[1] = v.y;
    if (col + 2 < N) p[2] = v.z;
    if (col + 3 < N) p[3] = v.w;
  }
}

template <bool VEC>
static __global__ void __launch_bounds__(RB_THREADS, 2)
    regblock_kernel(const float *__restrict__ A, const float *__restrict__ B, float *__restrict__ C, unsigned M,
                    unsigned N, unsigned K, unsigned tiles_n, unsigned long long tiles) {
  __shared__ __align__(16) float As[2][RB_BK][RB_BM + 4];
  __shared__ __align__(16) float Bs[2][RB_BK][RB_BN];
  const int t = threadIdx.x, warp = t >> 5, lane = t & 31;
  const int tm = 32 * (warp >> 1) + 4 * (lane >> 3);
  const int tn = 64 * (warp & 1) + 4 * (lane & 7);
  const int a_row = t >> 1, a_k = 4 * (t & 1);
  const int b_k = t >> 5, b_col = 4 * (t & 31);
  const unsigned ksteps = (K - 1) / RB_BK + 1; // K > 0

  for (unsigned long long tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
    const unsigned m0 = (unsigned)(tile / tiles_n) * RB_BM, n0 = (unsigned)(tile % tiles_n) * RB_BN;
    float acc[8][8];
#pragma unroll
    for (int i = 0; i < 8; i++)
#pragma unroll
      for (int j = 0; j < 8; j++) acc[i][j] = 0.f;

    float4 a_next = load_a<VEC>(A, M, K, m0 + a_row, a_k);
    float4 b_next = load_b<VEC>(B, K, N, b_k, n0 + b_col);
    As[0][a_k + 0][a_row] = a_next.x;
    As[0][a_k + 1][a_row] = a_next.y;
    As[0][a_k + 2][a_row] = a_next.z;
    As[0][a_k + 3][a_row] = a_next.w;
    *(float4 *)&Bs[0][b_k][b_col] = b_next;
    __syncthreads();

    for (unsigned ks = 0; ks < ksteps; ks++) {
      const int cur = ks & 1;
      const bool more = ks + 1 < ksteps;
      if (more) { // global loads for the next k-step fly during this step's FMAs
        const unsigned k0 = (ks + 1) * RB_BK;
        a_next = load_a<VEC>(A, M, K, m0 + a_row, k0 + a_k);
        b_next = load_b<VEC>(B, K, N, k0 + b_k, n0 + b_col);
      }
#pragma unroll
      for (int k = 0; k < RB_BK; k++) {
        const float4 a0 = *(const float4 *)&As[cur][k][tm], a1 = *(const float4 *)&As[cur][k][tm + 16];
        const float4 b0 = *(const float4 *)&Bs[cur][k][tn], b1 = *(const float4 *)&Bs[cur][k][tn + 32];
        const float a[8] = {a0.x, a0.y, a0.z, a0.w, a1.x, a1.y, a1.z, a1.w};
        const float b[8] = {b0.x, b0.y, b0.z, b0.w, b1.x, b1.y, b1.z, b1.w};
#pragma unroll
        for (int i = 0; i < 8; i++)
#pragma unroll
          for (int j = 0; j < 8; j++) acc[i][j] = fmaf(a[i], b[j], acc[i][j]);
      }
      if (more) { // the other buffer was last read before the previous barrier
        As[cur ^ 1][a_k + 0][a_row] = a_next.x;
        As[cur ^ 1][a_k + 1][a_row] = a_next.y;
        As[cur ^ 1][a_k + 2][a_row] = a_next.z;
        As[cur ^ 1][a_k + 3][a_row] = a_next.w;
        *(float4 *)&Bs[cur ^ 1][b_k][b_col] = b_next;
      }
      __syncthreads();
    }

#pragma unroll
    for (int i = 0; i < 8; i++) {
      const unsigned row = m0 + tm + (i < 4 ? i : 12 + i); // tm + {0..3, 16..19}
      if (row < M) {
        store_c<VEC>(C, N, row, n0 + tn, make_float4(acc[i][0], acc[i][1], acc[i][2], acc[i][3]));
        store_c<VEC>(C, N, row, n0 + tn + 32, make_float4(acc[i][4], acc[i][5], acc[i][6], acc[i][7]));
      }
    }
  }
}

// ---------------------------------------------------------------------------
// Warp tiling: 128x128 block tiles, k-steps of 8, but 128 threads (2x2 warps),
// each warp a 64x64 tile and each thread 16x8 of C: four row groups 16 apart
// and two column groups 32 apart, 4x4 each, so that the shared-memory reads
// stay one float4 per group and broadcast within a warp. Against regblock,
// every thread does 128 FMAs per 6 float4 reads (64 per 4), and the block's
// B columns are shared by 4 warps instead of 8. Same double buffer as
// regblock. Tiles are visited in groups of 8 tile rows (for L2 reuse of B; it
// made no measurable difference at 2048^3 and 4096^3 on an H100).

#define WT_THREADS 128
#define WT_GROUP 8

template <bool VEC>
static __global__ void __launch_bounds__(WT_THREADS, 2)
    warptile_kernel(const float *__restrict__ A, const float *__restrict__ B, float *__restrict__ C, unsigned M,
                    unsigned N, unsigned K, unsigned group) {
  constexpr int RG = 4, CG = 2, WN = 2, BK = RB_BK, NT = WT_THREADS, BM = RB_BM, BN = RB_BN;
  constexpr int LA = BM * BK / 4 / NT, LB = BK * BN / 4 / NT; // float4 per thread per k-step
  __shared__ __align__(16) float As[2][BK][BM + 4];
  __shared__ __align__(16) float Bs[2][BK][BN];
  const int t = threadIdx.x, warp = t >> 5, lane = t & 31;
  const int wm = (warp / WN) * 16 * RG + 4 * (lane >> 3);
  const int wn = (warp % WN) * 32 * CG + 4 * (lane & 7);
  // Tiles in groups of `group` tile rows (x fastest within a group), as blocks are launched.
  const unsigned tiles_n = gridDim.x, pid = blockIdx.y * tiles_n + blockIdx.x;
  const unsigned tiles_m = gridDim.y, per_group = group * tiles_n;
  const unsigned first_m = (pid / per_group) * group;
  const unsigned gsize = min(tiles_m - first_m, group);
  const unsigned tm_idx = first_m + (pid % per_group) % gsize, tn_idx = (pid % per_group) / gsize;
  const unsigned m0 = tm_idx * BM, n0 = tn_idx * BN;
  const unsigned ksteps = (K + BK - 1) / BK;

  float acc[RG * 4][CG * 4];
#pragma unroll
  for (int i = 0; i < RG * 4; i++)
#pragma unroll
    for (int j = 0; j < CG * 4; j++) acc[i][j] = 0.f;

  float4 an[LA], bn[LB];
  auto gload = [&](unsigned k0) {
#pragma unroll
    for (int l = 0; l < LA; l++) {
      int f = t + l * NT, row = f / (BK / 4), kq = f % (BK / 4);
      an[l] = load_a<VEC>(A, M, K, m0 + row, k0 + 4 * kq);
    }
#pragma unroll
    for (int l = 0; l < LB; l++) {
      int f = t + l * NT, k = f / (BN / 4), c = f % (BN / 4);
      bn[l] = load_b<VEC>(B, K, N, k0 + k, n0 + 4 * c);
    }
  };
  auto sstore = [&](int buf) {
#pragma unroll
    for (int l = 0; l < LA; l++) {
      int f = t + l * NT, row = f / (BK / 4), kq = f % (BK / 4);
      As[buf][4 * kq + 0][row] = an[l].x;
      As[buf][4 * kq + 1][row] = an[l].y;
      As[buf][4 * kq + 2][row] = an[l].z;
      As[buf][4 * kq + 3][row] = an[l].w;
    }
#pragma unroll
    for (int l = 0; l < LB; l++) {
      int f = t + l * NT, k = f / (BN / 4), c = f % (BN / 4);
      *(float4 *)&Bs[buf][k][4 * c] = bn[l];
    }
  };
  gload(0);
  sstore(0);
  __syncthreads();
  for (unsigned ks = 0; ks < ksteps; ks++) {
    const int cur = ks & 1;
    const bool more = ks + 1 < ksteps;
    if (more) gload((ks + 1) * BK);
#pragma unroll
    for (int k = 0; k < BK; k++) {
      float a[RG * 4], b[CG * 4];
#pragma unroll
      for (int g = 0; g < RG; g++) {
        float4 v = *(const float4 *)&As[cur][k][wm + 16 * g];
        a[4 * g] = v.x, a[4 * g + 1] = v.y, a[4 * g + 2] = v.z, a[4 * g + 3] = v.w;
      }
#pragma unroll
      for (int g = 0; g < CG; g++) {
        float4 v = *(const float4 *)&Bs[cur][k][wn + 32 * g];
        b[4 * g] = v.x, b[4 * g + 1] = v.y, b[4 * g + 2] = v.z, b[4 * g + 3] = v.w;
      }
#pragma unroll
      for (int i = 0; i < RG * 4; i++)
#pragma unroll
        for (int j = 0; j < CG * 4; j++) acc[i][j] = fmaf(a[i], b[j], acc[i][j]);
    }
    if (more) sstore(cur ^ 1);
    __syncthreads();
  }
#pragma unroll
  for (int i = 0; i < RG * 4; i++) {
    unsigned row = m0 + wm + 16 * (i / 4) + i % 4;
    if (row >= M) continue;
#pragma unroll
    for (int g = 0; g < CG; g++)
      store_c<VEC>(C, N, row, n0 + wn + 32 * g,
                   make_float4(acc[i][4 * g], acc[i][4 * g + 1], acc[i][4 * g + 2], acc[i][4 * g + 3]));
  }
}

// ---------------------------------------------------------------------------
// Pipelined: warptile's 128x128 tiles, 128 threads and 16x8 of C per thread, but A is kept as it
// is in memory (As[m][k], k contiguous, no transpose), both tiles are filled by 16-byte cp.async
// copies (no staging registers, no shared-memory stores) in 4 stages of k-steps of 16, and the
// barrier sits before each step's last 128 FFMAs instead of after them: every thread has then read
// its whole stage, so the copy of step ks + 4 goes there at once and the next step's first
// fragments are loaded under those FFMAs (cuBLAS's SIMT SGEMM has its barrier in the same place).
// Found by a prototype sweep on an H100 and an H200 (docs/RESULTS.md): 0.99 x cuBLAS at 4096^3,
// where warptile is 0.86; the barrier's place alone took a 3-stage k8 form from 0.84 to 0.92.
// Whole tiles only (M, N multiples of 128, K of 16, 16-byte aligned rows): other shapes go to
// warptile, as a library picks a kernel by alignment.
//
// A thread's 16 rows are interleaved (16 g + 4 r + lm, lm = lane / 8), so one LDS.128 of A reads
// four consecutive rows; with 64-byte rows, rows r and r + 2 share banks, so each row's 16-byte
// chunk index is XORed with bit 1 of the row (a swizzle instead of padding).

#define PL_BK 16
#define PL_STAGES 4
#define PL_THREADS 128
#define PL_SMEM_BYTES (PL_STAGES * (RB_BM + RB_BN) * PL_BK * 4) /* 64 KB: dynamic */

// This thread's part of a tile: its fragments' origin and the 16-byte chunks it copies.
typedef struct {
  int wr, wc, lm, ln, swz;
  int a_sm[4], b_sm[4];    // chunk offsets in a stage (floats)
  size_t a_gl[4], b_gl[4]; // their global offsets at k-step 0
} pl_thread;

static __device__ __forceinline__ int pl_swizzle(int row) { return (row >> 1) & 1; }

static __device__ __forceinline__ pl_thread pl_thread_of(int t, unsigned m0, unsigned n0, unsigned N, unsigned K) {
  pl_thread p;
  const int warp = t >> 5, lane = t & 31;
  p.wr = (warp >> 1) * 64, p.wc = (warp & 1) * 64, p.lm = lane >> 3, p.ln = lane & 7;
  p.swz = pl_swizzle(p.lm); // fragment rows are lm + a multiple of 4
#pragma unroll
  for (int l = 0; l < 4; l++) { // consecutive threads copy consecutive 16-byte words
    const int c = t + PL_THREADS * l, row = c / (PL_BK / 4), kc = c % (PL_BK / 4);
    p.a_sm[l] = row * PL_BK + 4 * (kc ^ pl_swizzle(row));
    p.a_gl[l] = (size_t)(m0 + row) * K + 4 * kc;
    const int bk = c / (RB_BN / 4), bc = 4 * (c % (RB_BN / 4));
    p.b_sm[l] = bk * RB_BN + bc;
    p.b_gl[l] = (size_t)bk * N + n0 + bc;
  }
  return p;
}

// 16-byte global -> shared copy through L2 only; src_bytes 0 reads nothing (zero fill), so the
// steps past the end are issued like the others and the loop has no branch.
static __device__ __forceinline__ void cp_async16(float *smem, const float *gmem, unsigned src_bytes) {
  const unsigned s = (unsigned)__cvta_generic_to_shared(smem);
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(s), "l"(gmem), "r"(src_bytes) : "memory");
}
static __device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::: "memory"); }
template <int N>
static __device__ __forceinline__ void cp_async_wait() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(N) : "memory");
}

// B rows 4 kq + k0 .. 4 kq + k1 - 1: bf[k][j] = B(4 kq + k, wc + 4 ln + 32 (j / 4) + j % 4).
static __device__ __forceinline__ void pl_lds_b(float (&bf)[4][8], const float *bs, const pl_thread &p, int kq, int k0,
                                                int k1) {
#pragma unroll
  for (int k = k0; k < k1; k++) {
    const float4 v0 = *(const float4 *)&bs[(4 * kq + k) * RB_BN + p.wc + 4 * p.ln];
    const float4 v1 = *(const float4 *)&bs[(4 * kq + k) * RB_BN + p.wc + 4 * p.ln + 32];
    bf[k][0] = v0.x, bf[k][1] = v0.y, bf[k][2] = v0.z, bf[k][3] = v0.w;
    bf[k][4] = v1.x, bf[k][5] = v1.y, bf[k][6] = v1.z, bf[k][7] = v1.w;
  }
}

// Row group g of quad kq: af[r] = A(wr + 16 g + 4 r + lm, 4 kq .. 4 kq + 3).
static __device__ __forceinline__ void pl_lds_a(float4 (&af)[4], const float *as, const pl_thread &p, int kq, int g) {
#pragma unroll
  for (int r = 0; r < 4; r++) af[r] = *(const float4 *)&as[(p.wr + 16 * g + 4 * r + p.lm) * PL_BK + 4 * (kq ^ p.swz)];
}

// 4 rows x 4 k x 8 columns of FFMAs.
static __device__ __forceinline__ void pl_fma(float (&acc)[16][8], int g, const float4 (&af)[4],
                                              const float (&bf)[4][8]) {
#pragma unroll
  for (int k = 0; k < 4; k++) {
    float a[4];
#pragma unroll
    for (int r = 0; r < 4; r++) a[r] = k == 0 ? af[r].x : k == 1 ? af[r].y : k == 2 ? af[r].z : af[r].w;
#pragma unroll
    for (int r = 0; r < 4; r++)
#pragma unroll
      for (int j = 0; j < 8; j++) acc[4 * g + r][j] = fmaf(a[r], bf[k][j], acc[4 * g + r][j]);
  }
}

static __global__ void __launch_bounds__(PL_THREADS, 2)
    pipelined_kernel(const float *__restrict__ A, const float *__restrict__ B, float *__restrict__ C, unsigned N,
                     unsigned K, unsigned group) {
  extern __shared__ float4 pl_smem[];
  float *const As = (float *)pl_smem;               // PL_STAGES stages of A (128 x 16),
  float *const Bs = As + PL_STAGES * RB_BM * PL_BK; // then of B (16 x 128)
  // Tiles in groups of `group` tile rows, x fastest within a group, as warptile.
  const unsigned tiles_n = gridDim.x, pid = blockIdx.y * tiles_n + blockIdx.x;
  const unsigned tiles_m = gridDim.y, per_group = group * tiles_n;
  const unsigned first_m = (pid / per_group) * group;
  const unsigned gsize = min(tiles_m - first_m, group);
  const unsigned m0 = (first_m + (pid % per_group) % gsize) * RB_BM, n0 = ((pid % per_group) / gsize) * RB_BN;
  const pl_thread p = pl_thread_of(threadIdx.x, m0, n0, N, K);
  const unsigned ksteps = K / PL_BK;
  // Step ks into stage st; past the last step nothing is read (size 0 from a valid address).
  auto issue = [&](unsigned ks, int st) {
    const bool in = ks < ksteps;
    const unsigned kk = in ? ks : 0, bytes = in ? 16 : 0;
#pragma unroll
    for (int l = 0; l < 4; l++) cp_async16(&As[st * RB_BM * PL_BK + p.a_sm[l]], A + p.a_gl[l] + kk * PL_BK, bytes);
#pragma unroll
    for (int l = 0; l < 4; l++)
      cp_async16(&Bs[st * PL_BK * RB_BN + p.b_sm[l]], B + p.b_gl[l] + (size_t)kk * PL_BK * N, bytes);
    cp_async_commit();
  };

  float acc[16][8];
#pragma unroll
  for (int i = 0; i < 16; i++)
#pragma unroll
    for (int j = 0; j < 8; j++) acc[i][j] = 0.f;

#pragma unroll
  for (int s = 0; s < PL_STAGES; s++) issue(s, s);
  cp_async_wait<PL_STAGES - 1>();
  __syncthreads();
  float bq[2][4][8];
  float4 ag[2][4];
  pl_lds_b(bq[0], Bs, p, 0, 0, 2);
  pl_lds_a(ag[0], As, p, 0, 0);
  int rd = 0;
  for (unsigned ks = 0; ks < ksteps; ks++) {
    const int nx = rd + 1 == PL_STAGES ? 0 : rd + 1;
    const float *as = As + rd * RB_BM * PL_BK, *bs = Bs + rd * PL_BK * RB_BN;
#pragma unroll
    for (int pc = 0; pc < PL_BK; pc++) { // piece pc: quad kq = pc / 4 of k, row group g = pc % 4
      const int kq = pc >> 2, g = pc & 3;
      // A quad of B is loaded in two halves, k 0-1 one piece ahead and k 2-3 in the piece that
      // first uses it (its first 64 FFMAs need only k 0-1): 16 registers fewer where two quads are
      // live, which keeps the kernel from spilling.
      if (g == 0) pl_lds_b(bq[kq & 1], bs, p, kq, 2, 4);
      if (pc < PL_BK - 1) {
        const int q = (pc + 1) >> 2, h = (pc + 1) & 3;
        if (h == 0) pl_lds_b(bq[q & 1], bs, p, q, 0, 2);
        pl_lds_a(ag[(pc + 1) & 1], as, p, q, h);
      } else {
        cp_async_wait<PL_STAGES - 2>(); // this thread's copies of step ks + 1 have landed
        __syncthreads();                // everyone's have, and everyone has read all of stage rd
        issue(ks + PL_STAGES, rd);
        pl_lds_b(bq[0], Bs + nx * PL_BK * RB_BN, p, 0, 0, 2);
        pl_lds_a(ag[0], As + nx * RB_BM * PL_BK, p, 0, 0);
      }
      pl_fma(acc, g, ag[pc & 1], bq[kq & 1]);
    }
    rd = nx;
  }
  cp_async_wait<0>(); // no copy may land after the block has gone
#pragma unroll
  for (int i = 0; i < 16; i++) {
    const size_t row = m0 + p.wr + 16 * (i / 4) + 4 * (i % 4) + p.lm;
#pragma unroll
    for (int h = 0; h < 2; h++)
      *(float4 *)&C[row * N + n0 + p.wc + 4 * p.ln + 32 * h] =
          make_float4(acc[i][4 * h], acc[i][4 * h + 1], acc[i][4 * h + 2], acc[i][4 * h + 3]);
  }
}

// ---------------------------------------------------------------------------
// Host wrappers.

extern "C" cudaError_t matmul_naive(const float *A, const float *B, float *C, int M, int N, int K,
                                    cudaStream_t stream) {
  int run;
  cudaError_t err = matmul_prepare(A, B, C, M, N, K, stream, &run);
  if (err != cudaSuccess || !run) return err;
  unsigned tn = matmul_tiles(N, kNaive), tm = matmul_tiles(M, kNaive);
  dim3 grid;
  if ((err = grid_2d(tn, tm, &grid)) != cudaSuccess) return err;
  naive_kernel<<<grid, dim3(kNaive, kNaive), 0, stream>>>(A, B, C, M, N, K, tn, tm);
  return cudaGetLastError();
}

template <int T>
static cudaError_t tiled(const float *A, const float *B, float *C, int M, int N, int K, cudaStream_t stream) {
  int run;
  cudaError_t err = matmul_prepare(A, B, C, M, N, K, stream, &run);
  if (err != cudaSuccess || !run) return err;
  unsigned tn = matmul_tiles(N, T), tm = matmul_tiles(M, T);
  dim3 grid;
  if ((err = grid_2d(tn, tm, &grid)) != cudaSuccess) return err;
  tiled_kernel<T><<<grid, dim3(T, T), 0, stream>>>(A, B, C, M, N, K, tn, tm);
  return cudaGetLastError();
}

extern "C" cudaError_t matmul_tiled16(const float *A, const float *B, float *C, int M, int N, int K,
                                      cudaStream_t stream) {
  return tiled<16>(A, B, C, M, N, K, stream);
}

extern "C" cudaError_t matmul_tiled32(const float *A, const float *B, float *C, int M, int N, int K,
                                      cudaStream_t stream) {
  return tiled<32>(A, B, C, M, N, K, stream);
}

extern "C" cudaError_t matmul_regblock(const float *A, const float *B, float *C, int M, int N, int K,
                                       cudaStream_t stream) {
  int run;
  cudaError_t err = matmul_prepare(A, B, C, M, N, K, stream, &run);
  if (err != cudaSuccess || !run) return err;
  unsigned tn = matmul_tiles(N, RB_BN);
  unsigned long long tiles = (unsigned long long)matmul_tiles(M, RB_BM) * tn;
  unsigned grid;
  if ((err = grid_for(tiles, 1, &grid)) != cudaSuccess) return err;
  bool vec = K % 4 == 0 && N % 4 == 0 && is_aligned(A, 16) && is_aligned(B, 16) && is_aligned(C, 16);
  if (vec)
    regblock_kernel<true><<<grid, RB_THREADS, 0, stream>>>(A, B, C, M, N, K, tn, tiles);
  else
    regblock_kernel<false><<<grid, RB_THREADS, 0, stream>>>(A, B, C, M, N, K, tn, tiles);
  return cudaGetLastError();
}

// The 128x128 tiles of C as a 2D grid of one tile per block (warptile, pipelined): *fits is false
// past the grid's y limit or 2^32 tiles (block ids are 32-bit).
static cudaError_t tile_grid(int M, int N, unsigned *tn, unsigned *tm, bool *fits) {
  int dev = 0, max_y = 0;
  cudaError_t err = cudaGetDevice(&dev);
  if (err == cudaSuccess) err = cudaDeviceGetAttribute(&max_y, cudaDevAttrMaxGridDimY, dev);
  if (err != cudaSuccess) return err;
  *tn = matmul_tiles(N, RB_BN);
  *tm = matmul_tiles(M, RB_BM);
  *fits = *tm <= (unsigned)max_y && (unsigned long long)*tm * *tn <= 0xffffffffull;
  return cudaSuccess;
}

extern "C" cudaError_t matmul_warptile(const float *A, const float *B, float *C, int M, int N, int K,
                                       cudaStream_t stream) {
  int run;
  cudaError_t err = matmul_prepare(A, B, C, M, N, K, stream, &run);
  if (err != cudaSuccess || !run) return err;
  // One tile per block, no loop over tiles (with one, this kernel's registers were allocated
  // differently and it ran 6-10 % slower on an H100). Past the grid's y limit (M > 8 388 480) or
  // 2^32 tiles, regblock, which loops, does the work.
  unsigned tn, tm;
  bool fits;
  if ((err = tile_grid(M, N, &tn, &tm, &fits)) != cudaSuccess) return err;
  if (!fits) return matmul_regblock(A, B, C, M, N, K, stream);
  bool vec = K % 4 == 0 && N % 4 == 0 && is_aligned(A, 16) && is_aligned(B, 16) && is_aligned(C, 16);
  if (vec)
    warptile_kernel<true><<<dim3(tn, tm), WT_THREADS, 0, stream>>>(A, B, C, M, N, K, WT_GROUP);
  else
    warptile_kernel<false><<<dim3(tn, tm), WT_THREADS, 0, stream>>>(A, B, C, M, N, K, WT_GROUP);
  return cudaGetLastError();
}

extern "C" cudaError_t matmul_pipelined(const float *A, const float *B, float *C, int M, int N, int K,
                                        cudaStream_t stream) {
  int run;
  cudaError_t err = matmul_prepare(A, B, C, M, N, K, stream, &run);
  if (err != cudaSuccess || !run) return err;
  unsigned tn, tm;
  bool fits;
  if ((err = tile_grid(M, N, &tn, &tm, &fits)) != cudaSuccess) return err;
  bool whole =
      M % RB_BM == 0 && N % RB_BN == 0 && K % PL_BK == 0 && is_aligned(A, 16) && is_aligned(B, 16) && is_aligned(C, 16);
  if (!whole || !fits) return matmul_warptile(A, B, C, M, N, K, stream);
  // 64 KB of shared memory is above the default 48 KB a launch may ask for; the limit belongs to
  // the function in the current CUDA context, so it is set on every call (a host call, no sync).
  if ((err = cudaFuncSetAttribute(pipelined_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, PL_SMEM_BYTES)) !=
      cudaSuccess)
    return err;
  pipelined_kernel<<<dim3(tn, tm), PL_THREADS, PL_SMEM_BYTES, stream>>>(A, B, C, N, K, WT_GROUP);
  return cudaGetLastError();
}
