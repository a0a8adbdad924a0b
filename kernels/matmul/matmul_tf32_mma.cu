// TF32 tensor-core matmul through mma.sync (m16n8k8, inline PTX): the step after tf32_wmma
// (matmul_tf32.cu). Every input is rounded to the nearest TF32 in registers (cvt.rna.tf32.f32, as
// tf32_wmma's __float_to_tf32) and products accumulate in fp32: not an fp32 result, tf32_wmma's TF32
// tolerance applies. No atomics, and each accumulator sums k in a fixed order: every call gives the
// same bits.
//
// What it adds over tf32_wmma (64x64 tiles of 4 warps of 32x32, k-steps of 16 staged through
// registers, two barriers per step):
// - mma.sync instead of WMMA: its fragment layouts are fixed by the PTX ISA, so fragments can be read
//   from shared memory in the layout the copies leave there: A's with one ldmatrix.x4 per m16
//   fragment, B's with conflict-free scalar loads.
// - Bigger tiles: 128x256 blocks of 8 warps of 64x64, 4 x 8 MMAs per 8 of k and 128 accumulators per
//   thread (twice the products per fragment element of a 32x32 warp tile, 2.7x per copied element of
//   a 64x64 block tile).
// - A multi-stage cp.async ring: 16-byte cp.async.cg copies (no staging registers) in 3 stages of
//   k-steps of 32, pipelined_kernel's ring (matmul.cu): one barrier per step, before its last MMAs,
//   then the copy of step ks + 3 into the stage just read. Fragments are read one k8 slice ahead of
//   their MMAs (double-buffered registers).
// - Register rounding: each fragment register goes through cvt.rna just before its MMAs (cp.async
//   lands the bits unconverted; a rounding pass over each stage in shared memory would add about half
//   again to the shared-memory traffic). It costs 2 SASS instructions per register, about half of the
//   main loop's instructions (sm_90), which is the first thing to cut if the loop is issue-bound.
//
// Measured (one H100, CUDA 13.0, driver 580.159.04, medians with L2 flushed, n^3 for n = 1024 / 2048
// / 4096): cuBLAS TF32 16.4 / 55.7 / 395.8 us; this kernel (128x256, 3 stages) 46.5 / 97.1 / 725.7 us
// (189.4 TFLOP/s at 4096^3, about 0.55 x cuBLAS TF32); tf32_wmma 91.9 / 455.5 / 3400.6 us (4.7x
// slower at 4096^3). Other configurations of the same kernel, same runs: 128x256 with 4 stages 46.5 /
// 102.3 / 810.2; 256x128 (3 stages) 46.3 / 100.7 / 770.8; 128x128 of 4 warps of 64x64 (3 stages, 2
// blocks per SM) 27.7 / 101.7 / 802.4; 128x128 of 8 warps of 64x32 (4 stages; 1.5x the shared-memory
// bytes per MMA) 29.9 / 112.8 / 874.4. 128x256 with 3 stages was the fastest at 2048^3 and 4096^3,
// so it is the default (it also fits an A100's 163 KB of shared memory; the 4-stage form's 196 KB
// does not, and was slower anyway; the difference was not profiled). At 1024^3 it has 32 tiles for
// 132 SMs and the 128x128 kernel's 64 tiles (2 blocks per SM) run in 27.7 us; the entry still picks
// 128x256 there: the dispatch is by shape, as measured.
//
// Fragment layouts (PTX ISA, mma.m16n8k8 .tf32; the same in CUTLASS's SM80_16x8x8_F32TF32TF32F32_TN
// traits), g = lane / 4, t = lane % 4:
//   A (16 x 8, row): a0 (g, t), a1 (g + 8, t), a2 (g, t + 4), a3 (g + 8, t + 4)
//   B (8 x 8, col):  b0 (k t, n g), b1 (k t + 4, n g)
//   C (16 x 8):      c0 (g, 2 t), c1 (g, 2 t + 1), c2 (g + 8, 2 t), c3 (g + 8, 2 t + 1)
//
// A is stored as in memory (As[m][k], rows of 32 floats = 128 bytes), so one ldmatrix.x4 gives a
// whole A fragment: for 32-bit data an 8 x 8 b16 matrix is 8 rows x 4 floats, lane l receives word
// l % 4 of row l / 4 of each matrix, and matrices 0..3 are rows 0-7 / 8-15 x k 0-3 / 4-7, i.e.
// a0..a3. Lane l gives the address of row l % 8 of matrix l / 8. Each row's 16-byte chunk c is
// stored at chunk c ^ (row % 8): the 8 rows of a matrix, read in one phase, hit 8 different chunks.
//
// B is stored as in memory (Bs[k][n]), its rows padded to BN + 8 floats, and read with scalar LDS
// straight into the fragment registers: n-fragment j of a warp is columns wn + 8 j .. + 7, so lane
// (g, t) reads b0 at row t, column wn + 8 j + g (b1: row t + 4); the 32 lanes of one LDS hit banks
// 8 t + g + const, all different. (LDS.128 of 4 columns would need MOVs to pair b0 with b1 into the
// aligned register pairs HMMA takes, and moves no fewer bytes.) C leaves from the accumulators: c0, c1
// (and c2, c3) are adjacent columns, one float2 store each.
//
// Whole tiles only (M % BM, N % BN, K % 32 zero, A, B, C 16-byte aligned); 128x256 first, then 128x128
// (shapes of whole 128x128 tiles only, or a device short of 128x256's shared memory); any other shape
// goes to matmul_tf32_wmma. Needs sm_80 or newer.
#include <stdint.h>

#include "kernels/matmul/matmul.h"
#include "kernels/matmul/matmul_args.cuh"

#define TM_BK 32   /* k per stage: 8 chunks of 16 bytes per A row, the A swizzle's period */
#define TM_GROUP 8 /* tile rows per group of the block order (L2 reuse of B), as pipelined */

// The sizes derived from a configuration <BM, BN, WM, WN, STAGES>.
template <int BM, int BN, int WM, int WN, int STAGES>
struct tm_geom {
  static constexpr int BK = TM_BK, KK = BK / 8; // k8 slices per stage
  static constexpr int WARPS_M = BM / WM, WARPS_N = BN / WN, THREADS = 32 * WARPS_M * WARPS_N;
  static constexpr int MI = WM / 16, NI = WN / 8;               // m16 and n8 fragments per warp
  static constexpr int BLD = BN + 8;                            // B row stride (floats)
  static constexpr int A_STAGE = BM * BK, B_STAGE = BK * BLD;   // floats
  static constexpr int SMEM = STAGES * (A_STAGE + B_STAGE) * 4; // bytes
  // Copies: thread t moves chunk t % 8 of A row t / 8 and chunk t % (BN / 4) of B row t / (BN / 4),
  // then the same chunks A_ROWS (B_ROWS) rows further, A_PASSES (B_PASSES) times.
  static constexpr int A_ROWS = THREADS / (BK / 4), A_PASSES = BM / A_ROWS;
  static constexpr int B_ROWS = THREADS / (BN / 4), B_PASSES = BK / B_ROWS;
  static_assert(BM % WM == 0 && BN % WN == 0 && WM % 16 == 0 && WN % 8 == 0, "warp tiling");
  static_assert(KK % 2 == 0, "the next stage's first slice goes to fragment buffer 0");
  static_assert(THREADS % (BK / 4) == 0 && BM % A_ROWS == 0 && A_ROWS % 8 == 0,
                "A copies: whole passes, each pass keeps the row's swizzle (row % 8)");
  static_assert(THREADS % (BN / 4) == 0 && BK % B_ROWS == 0, "B copies: whole passes");
  static_assert(BN % 32 == 0, "B rows of 128-byte multiples: + 8 floats is a skew of 8 banks");
};

// 16-byte global -> shared copy through L2 only (pipelined's, without the zero fill: the steps past
// the end copy nothing here).
static __device__ __forceinline__ void tm_cp_async16(float *smem, const float *gmem) {
  const unsigned s = (unsigned)__cvta_generic_to_shared(smem);
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(s), "l"(gmem) : "memory");
}
static __device__ __forceinline__ void tm_cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::: "memory"); }
template <int N>
static __device__ __forceinline__ void tm_cp_async_wait() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(N) : "memory");
}

// Four 8 x 8 b16 matrices (here 8 rows x 4 floats each); addr: this lane's row (shared space).
static __device__ __forceinline__ void tm_ldmatrix_x4(uint32_t (&r)[4], unsigned addr) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(addr));
}

// Round to the nearest TF32 (ties away from zero), in place: the MMA itself would truncate.
static __device__ __forceinline__ void tm_tf32(uint32_t &x) {
  asm("cvt.rna.tf32.f32 %0, %1;\n" : "=r"(x) : "f"(__uint_as_float(x)));
}

// d += a * b, one m16n8k8 TF32 MMA.
static __device__ __forceinline__ void tm_mma(float (&d)[4], const uint32_t (&a)[4], const uint32_t (&b)[2]) {
  asm("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
      "{%0, %1, %2, %3};\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}

// One block per BM x BN tile of C; grid (N / BN, M / BM), tiles visited in groups of `group` tile
// rows (x fastest within a group), as pipelined_kernel. MINB: __launch_bounds__'s blocks per SM.
template <int BM, int BN, int WM, int WN, int STAGES, int MINB>
static __global__ void __launch_bounds__(tm_geom<BM, BN, WM, WN, STAGES>::THREADS, MINB)
    tf32_mma_kernel(const float *__restrict__ A, const float *__restrict__ B, float *__restrict__ C, unsigned N,
                    unsigned K, unsigned group) {
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 800
  using G = tm_geom<BM, BN, WM, WN, STAGES>;
  constexpr int BK = G::BK, KK = G::KK, MI = G::MI, NI = G::NI, BLD = G::BLD;
  extern __shared__ float4 tm_smem[];
  float *const As = (float *)tm_smem;         // STAGES stages of A (BM x 32, swizzled rows),
  float *const Bs = As + STAGES * G::A_STAGE; // then of B (32 x BN, rows of BN + 8)
  const unsigned tiles_n = gridDim.x, pid = blockIdx.y * tiles_n + blockIdx.x;
  const unsigned tiles_m = gridDim.y, per_group = group * tiles_n;
  const unsigned first_m = (pid / per_group) * group;
  const unsigned gsize = min(tiles_m - first_m, group);
  const unsigned m0 = (first_m + (pid % per_group) % gsize) * BM, n0 = ((pid % per_group) / gsize) * BN;
  const unsigned ksteps = K / BK;

  const int t = threadIdx.x, lane = t & 31, warp = t >> 5;
  const int wm = (warp / G::WARPS_N) * WM, wn = (warp % G::WARPS_N) * WN;

  // This thread's copies (pass 0; pass l is A_ROWS / B_ROWS rows further, same swizzle).
  const int a_row = t / (BK / 4), a_c = t % (BK / 4);
  const int b_row = t / (BN / 4), b_c = t % (BN / 4);
  const float *const a_src = A + (size_t)(m0 + a_row) * K + 4 * a_c;
  const float *const b_src = B + (size_t)b_row * N + n0 + 4 * b_c;
  const int a_dst = a_row * BK + 4 * (a_c ^ (a_row & 7));
  const int b_dst = b_row * BLD + 4 * b_c;
  // Step ks into stage st; steps past the last copy nothing (an empty group keeps the count).
  auto issue = [&](unsigned ks, int st) {
    if (ks < ksteps) {
      const float *const a = a_src + (size_t)ks * BK;
      const float *const b = b_src + (size_t)ks * BK * N;
#pragma unroll
      for (int l = 0; l < G::A_PASSES; l++)
        tm_cp_async16(As + st * G::A_STAGE + a_dst + l * G::A_ROWS * BK, a + (size_t)l * G::A_ROWS * K);
#pragma unroll
      for (int l = 0; l < G::B_PASSES; l++)
        tm_cp_async16(Bs + st * G::B_STAGE + b_dst + l * G::B_ROWS * BLD, b + (size_t)l * G::B_ROWS * N);
    }
    tm_cp_async_commit();
  };

  // ldmatrix: this lane gives row lr + 8 (lj % 2) of the m16 fragment, k chunk lj / 2 of the slice;
  // chunk 2 kk + lj / 2 of that row is stored at (2 kk + lj / 2) ^ lr = 2 kk ^ a_x.
  const int lr = lane & 7, lj = lane >> 3;
  const int a_x = (lj >> 1) ^ lr;
  const unsigned as_u32 = (unsigned)__cvta_generic_to_shared(As);
  unsigned a_ld[KK]; // byte address in stage 0, fragment 0, slice kk
#pragma unroll
  for (int kk = 0; kk < KK; kk++) a_ld[kk] = as_u32 + 4u * ((wm + lr + 8 * (lj & 1)) * BK + 4 * (a_x ^ (2 * kk)));
  // B: row t (+ 4) of the slice, column wn + 8 j + g of n-fragment j.
  const int g = lane >> 2, tq = lane & 3;
  const int b_ld = tq * BLD + wn + g;

  // Slice kk of stage st into fragments fa, fb (raw fp32 bits; rounded just before the MMAs).
  auto load_frags = [&](uint32_t(&fa)[MI][4], uint32_t(&fb)[NI][2], int st, int kk) {
#pragma unroll
    for (int i = 0; i < MI; i++) tm_ldmatrix_x4(fa[i], a_ld[kk] + 4u * (st * G::A_STAGE + 16 * i * BK));
    const float *const bs = Bs + st * G::B_STAGE + b_ld + 8 * kk * BLD;
#pragma unroll
    for (int j = 0; j < NI; j++)
#pragma unroll
      for (int q = 0; q < 2; q++) fb[j][q] = __float_as_uint(bs[4 * q * BLD + 8 * j]);
  };

  float acc[MI][NI][4];
#pragma unroll
  for (int i = 0; i < MI; i++)
#pragma unroll
    for (int j = 0; j < NI; j++)
#pragma unroll
      for (int e = 0; e < 4; e++) acc[i][j][e] = 0.f;

#pragma unroll
  for (int s = 0; s < STAGES; s++) issue(s, s);
  tm_cp_async_wait<STAGES - 1>(); // step 0 has landed (for this thread)
  __syncthreads();                // for everyone
  uint32_t fa[2][MI][4], fb[2][NI][2];
  load_frags(fa[0], fb[0], 0, 0);
  int rd = 0;
  for (unsigned ks = 0; ks < ksteps; ks++) {
    const int nx = rd + 1 == STAGES ? 0 : rd + 1;
#pragma unroll
    for (int kk = 0; kk < KK; kk++) {
      const int cur = kk & 1;
      if (kk < KK - 1) {
        load_frags(fa[cur ^ 1], fb[cur ^ 1], rd, kk + 1);
      } else {
        tm_cp_async_wait<STAGES - 2>(); // this thread's copies of step ks + 1 have landed
        __syncthreads();                // everyone's have, and everyone has read all of stage rd
        issue(ks + STAGES, rd);
        load_frags(fa[0], fb[0], nx, 0); // past the last step: stale data, never used
      }
#pragma unroll
      for (int i = 0; i < MI; i++)
#pragma unroll
        for (int e = 0; e < 4; e++) tm_tf32(fa[cur][i][e]);
#pragma unroll
      for (int j = 0; j < NI; j++)
#pragma unroll
        for (int e = 0; e < 2; e++) tm_tf32(fb[cur][j][e]);
#pragma unroll
      for (int i = 0; i < MI; i++)
#pragma unroll
        for (int j = 0; j < NI; j++) tm_mma(acc[i][j], fa[cur][i], fb[cur][j]);
    }
    rd = nx;
  }
  tm_cp_async_wait<0>(); // no copy may land after the block has gone (all are empty groups by now)

  // Rows wm + 16 i + g (c0, c1) and + 8 (c2, c3), columns wn + 8 j + 2 t and + 1.
#pragma unroll
  for (int i = 0; i < MI; i++)
#pragma unroll
    for (int r = 0; r < 2; r++) {
      float *const c = C + (size_t)(m0 + wm + 16 * i + g + 8 * r) * N + n0 + wn + 2 * tq;
#pragma unroll
      for (int j = 0; j < NI; j++) *(float2 *)&c[8 * j] = make_float2(acc[i][j][2 * r], acc[i][j][2 * r + 1]);
    }
#endif
}

// Configurations <BM, BN, WM, WN, STAGES, MINB>. 128x256 of 8 warps of 64x64: 147 KB of shared memory
// (one block per SM, so MINB 1: 255 registers allowed; fits an A100). 128x128 of 4 warps of 64x64:
// 99 KB, 2 blocks per SM on an H100 (1 on an A100); MINB 2 caps no registers at 128 threads.
#define TM_128x256 128, 256, 64, 64, 3, 1
#define TM_128x128 128, 128, 64, 64, 3, 2

// Launches configuration <BM, BN, WM, WN, STAGES, MINB> when the product is made of its whole tiles,
// fits its grid (tile rows within the y limit, fewer than 2^32 tiles: block ids are 32-bit) and the
// device gives a block its shared memory; *ran says whether it did. A, B, C are 16-byte aligned, the
// sizes positive.
template <int BM, int BN, int WM, int WN, int STAGES, int MINB>
static cudaError_t tm_try(const float *A, const float *B, float *C, int M, int N, int K, cudaStream_t stream,
                          bool *ran) {
  using G = tm_geom<BM, BN, WM, WN, STAGES>;
  *ran = false;
  if (M % BM != 0 || N % BN != 0 || K % TM_BK != 0) return cudaSuccess;
  int dev = 0, max_y = 0, smem = 0;
  cudaError_t err = cudaGetDevice(&dev);
  if (err == cudaSuccess) err = cudaDeviceGetAttribute(&max_y, cudaDevAttrMaxGridDimY, dev);
  if (err == cudaSuccess) err = cudaDeviceGetAttribute(&smem, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev);
  if (err != cudaSuccess) return err;
  const unsigned tn = (unsigned)(N / BN), tm = (unsigned)(M / BM);
  if (tm > (unsigned)max_y || (unsigned long long)tm * tn > 0xffffffffull || G::SMEM > smem) return cudaSuccess;
  auto kernel = tf32_mma_kernel<BM, BN, WM, WN, STAGES, MINB>;
  // Above the default 48 KB a launch may ask for; the limit belongs to the function in the current
  // CUDA context, so it is set on every call (a host call, no sync).
  if ((err = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, G::SMEM)) != cudaSuccess)
    return err;
  *ran = true;
  kernel<<<dim3(tn, tm), G::THREADS, G::SMEM, stream>>>(A, B, C, (unsigned)N, (unsigned)K, TM_GROUP);
  return cudaGetLastError();
}

extern "C" cudaError_t matmul_tf32_mma(const float *A, const float *B, float *C, int M, int N, int K,
                                       cudaStream_t stream) {
  int run;
  cudaError_t err = matmul_prepare(A, B, C, M, N, K, stream, &run);
  if (err != cudaSuccess || !run) return err;
  int dev = 0, major = 0;
  err = cudaGetDevice(&dev);
  if (err == cudaSuccess) err = cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev);
  if (err != cudaSuccess) return err;
  if (major < 8) return cudaErrorNotSupported;
  // 128x256 first; shapes of whole 128x128 tiles but not 128x256 ones, and devices short of 147 KB
  // (sm_86, sm_89: 99 KB), take the 128x128 kernel; anything else (or unaligned rows) tf32_wmma.
  if (is_aligned(A, 16) && is_aligned(B, 16) && is_aligned(C, 16)) {
    bool ran = false;
    if ((err = tm_try<TM_128x256>(A, B, C, M, N, K, stream, &ran)) != cudaSuccess || ran) return err;
    if ((err = tm_try<TM_128x128>(A, B, C, M, N, K, stream, &ran)) != cudaSuccess || ran) return err;
  }
  return matmul_tf32_wmma(A, B, C, M, N, K, stream);
}
