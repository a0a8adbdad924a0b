// fp32 matmul, wide: 128x256 tiles, and split-K over the same tiles and main loop (matmul_wide, matmul_splitk).
//
// Wide is cuBLAS's fp32 SIMT SGEMM shape on sm_90 (sm80_xmma_gemm_f32f32_f32f32_f32_nn_n_tilesize256x128x8_stage3_
// warpsize4x2x1_ffma, read from its machine code; 256x128 in its column-major terms): 128x256 tiles, 256 threads as
// 2 x 4 warps of 64x64, 16x8 of C per thread, k-steps of 8 in 3 stages, one block per SM. Where its loop differs
// from pipelined's (matmul.cu):
//  - A is stored transposed (As[k][m], k-rows padded to 132 floats), filled by 4-byte cp.async as cuBLAS does; B
//    as it is, by 16-byte cp.async. One k of a thread's fragments is then 4 + 2 LDS.128, so the fragments are
//    double buffered per k: k + 1's are loaded while k's FFMAs run (pipelined: quads of k, one LDS.128 = 4 k of a
//    row of A).
//  - Interleaved lanes (CUTLASS's SIMT RowMajorInterleaved<2>): lane bit 0 is bit 0 of the thread's m position,
//    lane bits 1-3 its n position, lane bit 4 bit 1 of its m position. Lanes n and n ^ 1 then read the same B
//    float4 and lanes n and n ^ 2 the same A float4: the pairing under which an LDS.128 takes 2 shared-memory
//    cycles instead of 4 (pipelined pairs A only).
//  - Stages and barrier as pipelined: the wait and barrier come before the last k's FFMAs, and the copy of step
//    ks + 3 goes into the stage just read.
// Whole tiles only (M % 128, N % 256, K % 8 zero, A, B, C 16-byte aligned, the grid within limits); any other
// shape is computed by matmul_pipelined.
//
// Split-K (issue #47): at 1024^3 too few tiles fill the GPU (wide: 32 tiles, one block per SM, for 132 SMs;
// pipelined: 64 for 264 block slots, 144.8 us against cuBLAS's 61.8 us when split-K was written). K is cut into
// S parts, tiles x S blocks each write a partial tile into a whole partial C (split z at W + z M N, in a
// workspace per context and stream), and a second kernel sums C = ((W_0 + W_1) + W_2) + ... in that fixed order:
// C's bits do not depend on the order the blocks ran in, no block waits for another, nothing needs resetting.
// Over pipelined's tiles (1024^3) this two-launch form took 62.3 us (S = 4; cuBLAS 64.1), a one-launch sum by the
// last block of each tile 67.6, stream-K 67.8, S = 2 or 3 (one launch) 82-84; with enough tiles a split loses
// (2048^3, S = 2: 404.9 against 361.3 us). Hence S = the largest of 1..4 with tiles x S <= the blocks resident at
// once, K / S a multiple of 8 and >= 128 (an H100: 4 at 1024^3, 1 from 2048^3 on, where splitk is wide).
// The old split kernel repeated pipelined's body (sharing it changed pipelined's registers); here one
// __forceinline__ main loop serves both kernels (ptxas 13.0, sm_90: 211 registers whole, 200 split, no spills).
//
// Measured on one H100 (CUDA 13.0, 2026-11-28), median, L2 flushed, n^3 for n = 1024 / 2048 / 4096, us:
//   cuBLAS fp32 (pedantic)            62.6 / 339.0 / 2640.9 (another run 62.4 / 339.6 / 2662.8)
//   splitk                            57.1 / 349.4 / 2744.4 (another run 57.2 / 352.3 / 2766.4): 1.09 / 0.97 /
//                                     0.96 x cuBLAS's speed
//   wide                             176.9 / 353.1 / 2766.3
//   pipelined                        144.5 / 363.5 / 2816.3
//   split-K over pipelined's tiles    59.6 / 360.8 / 2795.8 (the form this replaces)
// The same loop on other tiles lost: 128x128 with 128 threads and 4 stages of k 16 (pipelined's) 142.5 / 365.1 /
// 2865.1, the same with k 8 99.7 / 359.4 / 2827.6, 128x128 with 256 threads of 8x8 104.6 / 401.5 / 3149.0; reading
// the fragments by generic loads (LD.E.128, scheduled further ahead by ptxas) instead of LDS.128 was 3-5 % slower.
#include <stddef.h>
#include <stdint.h>

#include <cuda_runtime.h>

#include "kernels/common/context_cache.h"
#include "kernels/matmul/matmul.h"
#include "kernels/matmul/matmul_args.cuh"

#define WD_BM 128
#define WD_BN 256
#define WD_BK 8
#define WD_STAGES 3
#define WD_WARPS_N 4 /* warps along n (2 along m) */
#define WD_TM 16     /* C rows per thread */
#define WD_TN 8      /* C columns per thread */
#define WD_THREADS 256
#define WD_LM 4                    /* lanes along m in a warp */
#define WD_LN 8                    /* lanes along n */
#define WD_WM (WD_LM * WD_TM)      /* warp tile: 64 */
#define WD_WN (WD_LN * WD_TN)      /* 64 */
#define WD_MC (WD_TM / 4)          /* float4 chunks of a fragment, 4 LM rows apart */
#define WD_NC (WD_TN / 4)          /* 4 LN columns apart */
#define WD_AP (WD_BM + 4)          /* pitch of a k-row of As (floats): 4 mod 32 banks, 4-byte copies conflict-free */
#define WD_A_STAGE (WD_BK * WD_AP) /* floats */
#define WD_STAGE (WD_A_STAGE + WD_BK * WD_BN)
#define WD_SMEM (WD_STAGES * WD_STAGE * 4) /* bytes: 37.2 KB */
// A: 4-byte copies; a warp's copy = 4 rows x 8 consecutive k (thread t: row t / 8, k t % 8, then THREADS / 8 rows
// further per copy).
#define WD_A_ROWSTEP (WD_THREADS / 8)
#define WD_A_LROWS (WD_BM / WD_A_ROWSTEP)
#define WD_NA ((WD_BK / 8) * WD_A_LROWS)
// B: 16-byte copies; a warp's copy = 128 consecutive floats of one k-row.
#define WD_B_C4 (WD_BN / 4)
#define WD_B_KSTEP (WD_THREADS / WD_B_C4)
#define WD_NB (WD_BK / WD_B_KSTEP)

static_assert(WD_WM * (WD_THREADS / 32 / WD_WARPS_N) == WD_BM && WD_WN * WD_WARPS_N == WD_BN, "warps tile the block");
static_assert(WD_NA * WD_THREADS == WD_BM * WD_BK && WD_NB * WD_THREADS * 4 == WD_BK * WD_BN, "copies tile a stage");
static_assert(WD_AP % 32 == 4 && (WD_A_STAGE * 4) % 16 == 0 && (WD_STAGE * 4) % 16 == 0, "16-byte aligned parts");
// Below the 48 KB a launch may ask for without cudaFuncSetAttribute (the occupancy query needs none either).
static_assert(WD_SMEM <= 48 * 1024, "dynamic shared memory above the default limit");

// ---------------------------------------------------------------------------------------------------------------
// Index math. Fragment element i (0..15) of thread t is tile row row_of(t, i), element j (0..7) column col_of(t, j);
// acc[i][j] is C there.

// Lane -> (lm, ln), interleaved: lane bit 0 -> lm bit 0, lane bits 1-3 -> ln, lane bit 4 -> lm bit 1.
static __device__ __forceinline__ int lane_m(int lane) { return (lane & 1) | ((lane >> 3) & 2); }
static __device__ __forceinline__ int lane_n(int lane) { return (lane >> 1) & 7; }

static __device__ __forceinline__ int frag_m(int t) { return (t / 32 / WD_WARPS_N) * WD_WM + 4 * lane_m(t & 31); }
static __device__ __forceinline__ int frag_n(int t) { return (t / 32 % WD_WARPS_N) * WD_WN + 4 * lane_n(t & 31); }
static __device__ __forceinline__ int row_of(int t, int i) { return frag_m(t) + 4 * WD_LM * (i / 4) + i % 4; }
static __device__ __forceinline__ int col_of(int t, int j) { return frag_n(t) + 4 * WD_LN * (j / 4) + j % 4; }

// Shared-memory offsets (floats, within a stage) of the fragment loads of k: A chunk ic, B chunk jc.
static __device__ __forceinline__ int a_frag_off(int t, int k, int ic) {
  return k * WD_AP + frag_m(t) + 4 * WD_LM * ic;
}
static __device__ __forceinline__ int b_frag_off(int t, int k, int jc) {
  return WD_A_STAGE + k * WD_BN + frag_n(t) + 4 * WD_LN * jc;
}

// A copy l of thread t: tile row *row, k *kk; returns its shared-memory offset (floats, within a stage).
static __device__ __forceinline__ int a_copy(int t, int l, int *row, int *kk) {
  *row = t / 8 + WD_A_ROWSTEP * (l % WD_A_LROWS);
  *kk = t % 8 + 8 * (l / WD_A_LROWS);
  return *kk * WD_AP + *row;
}
// B copy l of thread t: k *k, tile columns *col..*col + 3; returns its shared-memory offset.
static __device__ __forceinline__ int b_copy(int t, int l, int *k, int *col) {
  *k = t / WD_B_C4 + WD_B_KSTEP * l;
  *col = 4 * (t % WD_B_C4);
  return WD_A_STAGE + *k * WD_BN + *col;
}
// What copy l adds to copy 0 of the same thread: shared-memory offset (floats) and global offset (elements).
static __device__ __forceinline__ int a_copy_sm_delta(int l) {
  return (l / WD_A_LROWS) * 8 * WD_AP + (l % WD_A_LROWS) * WD_A_ROWSTEP;
}
static __device__ __forceinline__ size_t a_copy_gl_delta(int l, unsigned K) {
  return (size_t)((l % WD_A_LROWS) * WD_A_ROWSTEP) * K + (size_t)((l / WD_A_LROWS) * 8);
}
static __device__ __forceinline__ int b_copy_sm_delta(int l) { return l * WD_B_KSTEP * WD_BN; }
static __device__ __forceinline__ size_t b_copy_gl_delta(int l, unsigned N) { return (size_t)(l * WD_B_KSTEP) * N; }
// What the fragment load of k, chunk ic (jc) adds to a_frag_off(t, 0, 0) (b_frag_off(t, 0, 0)).
static __device__ __forceinline__ int a_lds_delta(int k, int ic) { return k * WD_AP + 4 * WD_LM * ic; }
static __device__ __forceinline__ int b_lds_delta(int k, int jc) { return k * WD_BN + 4 * WD_LN * jc; }

// The tile (*tm, *tn) of block (bx, by) of a tiles_n x tiles_m grid: groups of `group` tile rows, x fastest within
// a group (pipelined's order, for L2 reuse of B).
static __device__ __forceinline__ void tile_of(unsigned bx, unsigned by, unsigned tiles_n, unsigned tiles_m,
                                               unsigned group, unsigned *tm, unsigned *tn) {
  const unsigned pid = by * tiles_n + bx, per_group = group * tiles_n;
  const unsigned first_m = (pid / per_group) * group;
  const unsigned gsize = tiles_m - first_m < group ? tiles_m - first_m : group;
  *tm = first_m + (pid % per_group) % gsize;
  *tn = (pid % per_group) / gsize;
}

// ---------------------------------------------------------------------------------------------------------------
// Device code.

extern __shared__ float4 wd_smem[];

// Global -> shared copies; src_bytes 0 reads nothing and writes zeros (the steps past the end are issued like the
// others, so the loop has no branch around them).
static __device__ __forceinline__ void cp_async4(uint32_t dst, const float *src, unsigned src_bytes) {
  asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;\n" ::"r"(dst), "l"(src), "r"(src_bytes) : "memory");
}
static __device__ __forceinline__ void cp_async16(uint32_t dst, const float *src, unsigned src_bytes) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(dst), "l"(src), "r"(src_bytes) : "memory");
}
static __device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::: "memory"); }
template <int N>
static __device__ __forceinline__ void cp_async_wait() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(N) : "memory");
}

// One k of FFMAs, acc += a (x) b, rows outer (ptxas reorders them anyway; of the source orders tried, this one
// gave the best machine code for this tile).
static __device__ __forceinline__ void fma_k(float (&acc)[WD_TM][WD_TN], const float (&a)[WD_TM],
                                             const float (&b)[WD_TN]) {
#pragma unroll
  for (int i = 0; i < WD_TM; i++)
#pragma unroll
    for (int j = 0; j < WD_TN; j++) acc[i][j] = fmaf(a[i], b[j], acc[i][j]);
}

// The fragments of k from the stage at `st` (a pointer to its first float).
static __device__ __forceinline__ void lds_k(float (&a)[WD_TM], float (&b)[WD_TN], const float *st, int a_off,
                                             int b_off, int k) {
#pragma unroll
  for (int ic = 0; ic < WD_MC; ic++) {
    const float4 v = *(const float4 *)(st + a_off + a_lds_delta(k, ic));
    a[4 * ic] = v.x, a[4 * ic + 1] = v.y, a[4 * ic + 2] = v.z, a[4 * ic + 3] = v.w;
  }
#pragma unroll
  for (int jc = 0; jc < WD_NC; jc++) {
    const float4 v = *(const float4 *)(st + b_off + b_lds_delta(k, jc));
    b[4 * jc] = v.x, b[4 * jc + 1] = v.y, b[4 * jc + 2] = v.z, b[4 * jc + 3] = v.w;
  }
}

// The main loop of both kernels: acc += A[m0 .. m0 + BM, kbeg .. kbeg + nsteps BK) * B[kbeg .., n0 .. n0 + BN) for
// this thread's fragment of the tile at (m0, n0); nsteps >= 1, A's rows K floats apart, B's N. Every thread of the
// block calls it (barriers). It returns with no copy in flight.
static __device__ __forceinline__ void wide_mainloop(const float *__restrict__ A, const float *__restrict__ B,
                                                     unsigned N, unsigned K, unsigned m0, unsigned n0, unsigned kbeg,
                                                     unsigned nsteps, float (&acc)[WD_TM][WD_TN]) {
  const int t = threadIdx.x;
  const float *const sm = (const float *)wd_smem;
  const uint32_t sbase = (uint32_t)__cvta_generic_to_shared(wd_smem);

  // Copies: copy l of thread t is copy 0 plus a_copy_*_delta(l) (b_copy_*_delta(l)); step ks adds BK columns of A
  // and BK rows of B.
  int r0, k0;
  const int a_sm0 = a_copy(t, 0, &r0, &k0);
  const float *const a_src = A + (size_t)(m0 + r0) * K + kbeg + k0;
  int bk0, bc0;
  const int b_sm0 = b_copy(t, 0, &bk0, &bc0);
  const float *const b_src = B + (size_t)(kbeg + bk0) * N + n0 + bc0;

  // Step ks into stage st; past the last step nothing is read (size 0 from a valid address: zeros).
  auto issue = [&](unsigned ks, int st) {
    const bool in = ks < nsteps;
    const unsigned kk = in ? ks : 0, b4 = in ? 4 : 0, b16 = in ? 16 : 0;
    const float *const ag = a_src + (size_t)kk * WD_BK;
    const float *const bg = b_src + (size_t)kk * WD_BK * N;
    const uint32_t ss = sbase + 4u * (uint32_t)(st * WD_STAGE);
#pragma unroll
    for (int l = 0; l < WD_NA; l++)
      cp_async4(ss + 4u * (uint32_t)(a_sm0 + a_copy_sm_delta(l)), ag + a_copy_gl_delta(l, K), b4);
#pragma unroll
    for (int l = 0; l < WD_NB; l++)
      cp_async16(ss + 4u * (uint32_t)(b_sm0 + b_copy_sm_delta(l)), bg + b_copy_gl_delta(l, N), b16);
    cp_async_commit();
  };

  const int a_off = a_frag_off(t, 0, 0), b_off = b_frag_off(t, 0, 0);
  float fa[2][WD_TM], fb[2][WD_TN];

#pragma unroll
  for (int s = 0; s < WD_STAGES; s++) issue(s, s);
  cp_async_wait<WD_STAGES - 1>(); // this thread's copies of step 0 have landed
  __syncthreads();                // everyone's have
  lds_k(fa[0], fb[0], sm, a_off, b_off, 0);
  int rd = 0; // the stage of step ks
  for (unsigned ks = 0; ks < nsteps; ks++) {
    const int nx = rd + 1 == WD_STAGES ? 0 : rd + 1;
#pragma unroll
    for (int k = 0; k < WD_BK; k++) {
      if (k < WD_BK - 1) {
        lds_k(fa[(k + 1) & 1], fb[(k + 1) & 1], sm + rd * WD_STAGE, a_off, b_off, k + 1);
      } else {
        cp_async_wait<WD_STAGES - 2>(); // this thread's copies of step ks + 1 have landed
        __syncthreads();                // everyone's have, and everyone has loaded all of stage rd into registers
        issue(ks + WD_STAGES, rd);
        lds_k(fa[0], fb[0], sm + nx * WD_STAGE, a_off, b_off, 0); // BK even: k = 0 of step ks + 1 is fa[0]
      }
      fma_k(acc, fa[k & 1], fb[k & 1]);
    }
    rd = nx;
  }
  cp_async_wait<0>(); // the zero-size copies past the end: none may land after the block has gone
}

// One tile per block, grid (tiles_n, tiles_m, S). SPLIT: block z sums k-steps [z n, (z + 1) n), n = K / BK / S,
// and writes them to out + z M N (M = tiles_m BM) with st.global.cg (kept in L2 for splitk_sum); else S = 1 and
// out is C.
template <bool SPLIT>
static __global__ void __launch_bounds__(WD_THREADS, 1)
    wide_kernel(const float *__restrict__ A, const float *__restrict__ B, float *__restrict__ out, unsigned N,
                unsigned K, unsigned group) {
  unsigned tmi, tni;
  tile_of(blockIdx.x, blockIdx.y, gridDim.x, gridDim.y, group, &tmi, &tni);
  const unsigned m0 = tmi * WD_BM, n0 = tni * WD_BN;
  const unsigned nsteps = SPLIT ? K / WD_BK / gridDim.z : K / WD_BK;
  const unsigned kbeg = SPLIT ? blockIdx.z * nsteps * WD_BK : 0;

  float acc[WD_TM][WD_TN];
#pragma unroll
  for (int i = 0; i < WD_TM; i++)
#pragma unroll
    for (int j = 0; j < WD_TN; j++) acc[i][j] = 0.f;

  wide_mainloop(A, B, N, K, m0, n0, kbeg, nsteps, acc);

  float *const dst = SPLIT ? out + (size_t)blockIdx.z * gridDim.y * WD_BM * N : out;
  const int t = threadIdx.x;
#pragma unroll
  for (int i = 0; i < WD_TM; i++) {
    const size_t row = m0 + row_of(t, i);
#pragma unroll
    for (int jc = 0; jc < WD_NC; jc++) {
      float4 *const p = (float4 *)&dst[row * N + n0 + col_of(t, 4 * jc)];
      const float4 v = make_float4(acc[i][4 * jc], acc[i][4 * jc + 1], acc[i][4 * jc + 2], acc[i][4 * jc + 3]);
      if (SPLIT)
        __stcg(p, v);
      else
        *p = v;
    }
  }
}

// C = ((W_0 + W_1) + W_2) + ..., S partial C's of n4 float4 each, in split order.
static __global__ void __launch_bounds__(256)
    splitk_sum(const float4 *__restrict__ W, float4 *__restrict__ C, size_t n4, unsigned S) {
  for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n4; i += (size_t)gridDim.x * blockDim.x) {
    float4 r = __ldcg(&W[i]);
#pragma unroll 4
    for (unsigned z = 1; z < S; z++) {
      const float4 v = __ldcg(&W[(size_t)z * n4 + i]);
      r.x += v.x, r.y += v.y, r.z += v.z, r.w += v.w;
    }
    C[i] = r;
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Host side.

#define WD_GROUP 8 /* tile rows per group (pipelined's) */
#define WD_MAX_SPLITS 4
#define WD_MIN_K 128  /* k per split at least (16 k-steps: the 3 stages have something to overlap) */
#define WD_DEVICES 64 /* per-device caches; a device past them is asked every time */

// M x N x K is whole tiles of C and its grid fits (y <= 65535, 32-bit block ids): *tn x *tm tiles.
static bool whole_tiles(int M, int N, int K, unsigned *tn, unsigned *tm) {
  if (M % WD_BM != 0 || N % WD_BN != 0 || K % WD_BK != 0) return false;
  *tn = (unsigned)(N / WD_BN);
  *tm = (unsigned)(M / WD_BM);
  return *tm <= 65535u && (unsigned long long)*tm * *tn <= 0xffffffffull;
}

static bool aligned16(const float *A, const float *B, const float *C) {
  return is_aligned(A, 16) && is_aligned(B, 16) && is_aligned(C, 16);
}

// SMs and resident blocks per SM of the split kernel (occupancy API: registers, shared memory) of each device, read
// once: the split count is chosen on every call.
static int g_sms[WD_DEVICES], g_per_sm[WD_DEVICES];

static cudaError_t resident_slots(unsigned long long *slots, int *sms_out) {
  int dev = 0, sms = 0, per = 0;
  cudaError_t err = cudaGetDevice(&dev);
  if (err != cudaSuccess) return err;
  const bool cached = dev >= 0 && dev < WD_DEVICES;
  if (cached) {
    sms = __atomic_load_n(&g_sms[dev], __ATOMIC_RELAXED);
    per = __atomic_load_n(&g_per_sm[dev], __ATOMIC_RELAXED);
  }
  if (sms <= 0) {
    if ((err = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev)) != cudaSuccess) return err;
    if (cached) __atomic_store_n(&g_sms[dev], sms, __ATOMIC_RELAXED);
  }
  if (per <= 0) {
    if ((err = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per, wide_kernel<true>, WD_THREADS, WD_SMEM)) !=
        cudaSuccess)
      return err;
    if (per < 1) per = 1;
    if (cached) __atomic_store_n(&g_per_sm[dev], per, __ATOMIC_RELAXED);
  }
  *slots = (unsigned long long)sms * (unsigned long long)per;
  *sms_out = sms;
  return cudaSuccess;
}

// The split count of a tn x tm tile product: the largest S of 1..4 with tiles x S <= the blocks resident at once
// (more would run in a second wave), K / S a multiple of BK and K / S >= WD_MIN_K.
static cudaError_t split_count(unsigned tn, unsigned tm, int K, int *S, int *sms) {
  *S = 1;
  unsigned long long slots;
  cudaError_t err = resident_slots(&slots, sms);
  if (err != cudaSuccess) return err;
  const unsigned long long tiles = (unsigned long long)tn * tm;
  for (int s = WD_MAX_SPLITS; s > 1; s--)
    if (tiles * s <= slots && K % (WD_BK * s) == 0 && K / s >= WD_MIN_K) {
      *S = s;
      break;
    }
  return cudaSuccess;
}

extern "C" cudaError_t matmul_wide(const float *A, const float *B, float *C, int M, int N, int K, cudaStream_t stream) {
  int run;
  cudaError_t err = matmul_prepare(A, B, C, M, N, K, stream, &run);
  if (err != cudaSuccess || !run) return err;
  unsigned tn, tm;
  if (!whole_tiles(M, N, K, &tn, &tm) || !aligned16(A, B, C)) return matmul_pipelined(A, B, C, M, N, K, stream);
  wide_kernel<false><<<dim3(tn, tm, 1), WD_THREADS, WD_SMEM, stream>>>(A, B, C, (unsigned)N, (unsigned)K, WD_GROUP);
  return cudaGetLastError();
}

extern "C" cudaError_t matmul_splitk_splits(int M, int N, int K, int *splits) {
  if (!splits || M < 0 || N < 0 || K < 0) return cudaErrorInvalidValue;
  *splits = 1;
  unsigned tn, tm;
  if (M == 0 || N == 0 || K == 0 || !whole_tiles(M, N, K, &tn, &tm)) return cudaSuccess;
  int sms;
  return split_count(tn, tm, K, splits, &sms);
}

extern "C" cudaError_t matmul_splitk(const float *A, const float *B, float *C, int M, int N, int K,
                                     cudaStream_t stream) {
  int run;
  cudaError_t err = matmul_prepare(A, B, C, M, N, K, stream, &run);
  if (err != cudaSuccess || !run) return err;
  unsigned tn, tm;
  int S = 1, sms = 0;
  if (whole_tiles(M, N, K, &tn, &tm) && aligned16(A, B, C) && (err = split_count(tn, tm, K, &S, &sms)) != cudaSuccess)
    return err;
  if (S == 1) return matmul_wide(A, B, C, M, N, K, stream); // enough tiles, or a shape wide does not take whole
  // S partial C's: 16 MB at 1024^3 (S = 4), kept per context and stream for the next call.
  const size_t n4 = (size_t)M * N / 4;
  void *ws;
  if ((err = stream_workspace_for_current_context(stream, (size_t)S * n4 * sizeof(float4), &ws)) != cudaSuccess)
    return err;
  wide_kernel<true><<<dim3(tn, tm, (unsigned)S), WD_THREADS, WD_SMEM, stream>>>(A, B, (float *)ws, (unsigned)N,
                                                                                (unsigned)K, WD_GROUP);
  if ((err = cudaGetLastError()) != cudaSuccess) return err;
  // 8 blocks of 256 per SM, each float4 of C once (1024^3: 262144 float4, 1024 blocks; the cap is 1056 on an H100).
  const size_t want = (n4 + 255) / 256, cap = (size_t)sms * 8;
  splitk_sum<<<(unsigned)(want < cap ? want : cap), 256, 0, stream>>>((const float4 *)ws, (float4 *)C, n4, (unsigned)S);
  return cudaGetLastError();
}
