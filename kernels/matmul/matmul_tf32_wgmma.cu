// TF32 matmul on Hopper (sm_90a): wgmma fed by TMA, C = A * B, all row-major (A M x K, B K x N).
//
// wgmma.mma_async with .tf32 operands reads both operands K-major (there is no transpose option for
// 32-bit types). A (row-major M x K) is K-major already; B (row-major K x N) is not. The two entry points
// deal with that in two ways:
//
// matmul_tf32_wgmma (transpose, then SS: both operands from shared memory):
//   1. tf32_transpose_kernel writes Bt = B^T (N x K, row-major) into the stream's workspace, each element
//      rounded to the nearest TF32 (cvt.rna.tf32.f32) on the way.
//   2. tf32_wgmma_kernel computes C = A * Bt^T: block tile 128 x 256, k-steps of 32 (one 128-byte swizzle
//      row of fp32), a ring of 4 shared-memory stages filled by TMA (cp.async.bulk.tensor.2d, 128-byte
//      swizzle) with full/empty mbarriers. 384 threads: warpgroup 0 is the producer (one thread issues the
//      TMA copies; setmaxnreg.dec 40), warpgroups 1 and 2 are consumers (setmaxnreg.inc 232), each a 64 x
//      256 slice of the tile with 4 wgmma m64n256k8 per stage and one committed group kept in flight. The
//      epilogue stores the accumulators straight from registers (float2 per row pair). Persistent grid:
//      one block per SM walking tiles blockIdx.x, + gridDim.x, ..., in groups of 8 tile rows (L2 reuse).
// matmul_tf32_wgmma_rs (RS: no transpose): tf32_wgmma_rs_kernel computes each 256 (m) x 128 (n) tile of C
//   as its transpose C^T = B^T * A^T: wgmma's first operand comes from registers, loaded from B's natural
//   [k][n] tile in shared memory and rounded to the nearest TF32 there; its second is A's [m][k] tile,
//   read from shared memory as in the SS kernel. Same producer, ring, barriers and grid.
//
// Numerics: wgmma reads A from shared memory as fp32 bits and the tensor cores use only their TF32 part
// (sign, exponent, top 10 mantissa bits): A is truncated toward zero, B is rounded to nearest. Products
// and sums are fp32 in the tensor cores' own order; every element of C is written once by one thread, so
// the result is the same bits on every call.
//
// Measured (one H100, CUDA 13.0, driver 580.159.04, medians with L2 flushed, n^3, n = 1024 / 2048 / 4096):
//   cuBLAS TF32 (cublasSgemm, CUBLAS_TF32_TENSOR_OP_MATH)  16.4 / 55.7 / 395.8 us
//   torch.mm TF32, same run                                 18.0 / 50.6 / 387.8 us
//   matmul_tf32_wgmma                                       31.1 / 65.4 / 431.2 us (0.917 x cuBLAS TF32 at 4096^3)
//   matmul_tf32_wgmma_rs                                    26.5 / 57.7 / 411.7 us (0.961 x)
// and two forms of the SS kernel left out: one block per tile instead of the persistent grid 31.0 / 67.8 /
// 484.3 us, 128 x 128 tiles in 6 stages 21.4 / 70.2 / 503.9 us. The same run checked all of them against
// an fp64 reference (128x128x32 .. 1024x2048x4096, other shapes through the fallbacks, a repeated call
// giving the same bits).
//
// Whole tiles only, 16-byte aligned A, B, C, on a device of compute capability 9.0 (sm_90a code runs
// nowhere else); other calls go to the fallbacks named in kernels/matmul/matmul.h.
#include <stdint.h>

#include <cuda.h>
#include <cudaTypedefs.h>
#include <cuda_runtime.h>

#include "kernels/common/context_cache.h"
#include "kernels/matmul/matmul.h"
#include "kernels/matmul/matmul_args.cuh"

#define WG_BM 128                      /* rows of C per block tile */
#define WG_BN 256                      /* columns of C per block tile: the wgmma N */
#define WG_BK 32                       /* k per stage: 32 fp32 = 128 bytes, one 128B-swizzle row */
#define WG_STAGES 4                    /* 2 stages in flight while the consumers hold 2 */
#define WG_THREADS 384                 /* producer warpgroup + 2 consumer warpgroups */
#define WG_GROUP 8                     /* tile rows per group of the tile order (L2 reuse) */
#define WG_A_BYTES (WG_BM * WG_BK * 4) /* 16 KB of A per stage */
// A stage: 16 KB of A and 32 KB of Bt. 4 stages (below the 227 KB a block may have), 1 KB for aligning
// the ring to the 1024-byte swizzle period, 16 bytes per stage of mbarriers.
#define WG_STAGE_BYTES (WG_A_BYTES + WG_BN * WG_BK * 4)
#define WG_SMEM ((size_t)WG_STAGES * WG_STAGE_BYTES + 1024 + 16 * WG_STAGES)
// __launch_bounds__(384, 1) makes ptxas allocate 168 registers a thread (64512 of the SM's 65536): the
// producer's dec frees 128 x 128 and the consumers' inc takes 256 x 64, the same 16384. With fewer
// registers at launch the inc could wait forever: the build must keep reporting "Used 168 registers".
#define WG_PRODUCER_REGS 40
#define WG_CONSUMER_REGS 232

// Transpose tiles: a block of 256 threads moves 64 (k) x 64 (n) of B as 2 x 2 sub-tiles of 32 x 32.
#define TR_THREADS 256
#define TR_TILE 64

#if defined(__CUDA_ARCH_FEAT_SM90_ALL)

static __device__ __forceinline__ uint32_t smem_u32(const void *p) { return (uint32_t)__cvta_generic_to_shared(p); }

// x rounded to the nearest TF32 (ties away from zero), as an fp32 with the low 13 mantissa bits zero.
static __device__ __forceinline__ float tf32_rna(float x) {
  uint32_t u;
  asm("cvt.rna.tf32.f32 %0, %1;" : "=r"(u) : "f"(x));
  return __uint_as_float(u);
}

// One 16-byte store (a plain float4 store through a pointer was split into 4 scalar stores for one of
// the sub-tiles by the compiler of CUDA 13.0).
static __device__ __forceinline__ void st_global_v4(float *p, float x, float y, float z, float w) {
  asm volatile("st.global.v4.f32 [%0], {%1, %2, %3, %4};" ::"l"(p), "f"(x), "f"(y), "f"(z), "f"(w) : "memory");
}

// --- mbarriers (shared::cta addresses) ---
static __device__ __forceinline__ void mbar_init(uint32_t bar, uint32_t count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(bar), "r"(count) : "memory");
}
static __device__ __forceinline__ void mbar_fence_init() {
  asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
}
static __device__ __forceinline__ void mbar_arrive_expect_tx(uint32_t bar, uint32_t bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(bar), "r"(bytes) : "memory");
}
static __device__ __forceinline__ void mbar_arrive(uint32_t bar) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(bar) : "memory");
}
// Returns once the phase of parity `parity` has completed (the current phase's parity differs).
static __device__ __forceinline__ void mbar_wait(uint32_t bar, uint32_t parity) {
  uint32_t done;
  do {
    asm volatile(
        "{\n"
        ".reg .pred p;\n"
        "mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n"
        "selp.u32 %0, 1, 0, p;\n"
        "}\n"
        : "=r"(done)
        : "r"(bar), "r"(parity)
        : "memory");
  } while (!done);
}

// --- TMA ---
static __device__ __forceinline__ void tma_prefetch(const CUtensorMap *map) {
  asm volatile("prefetch.tensormap [%0];" ::"l"((uint64_t)map) : "memory");
}
// The box of `map` at (c0 = innermost coordinate, c1) to shared memory at dst; completes `bytes` of
// transactions on the mbarrier bar.
static __device__ __forceinline__ void tma_load_2d(uint32_t dst, const CUtensorMap *map, uint32_t bar, int c0, int c1) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%3, %4}], [%2];" ::"r"(
          dst),
      "l"((uint64_t)map), "r"(bar), "r"(c0), "r"(c1)
      : "memory");
}

// --- warpgroup register reconfiguration (the count must be an immediate) ---
template <int R>
static __device__ __forceinline__ void setmaxnreg_inc() {
  asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;" ::"n"(R));
}
template <int R>
static __device__ __forceinline__ void setmaxnreg_dec() {
  asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;" ::"n"(R));
}

// --- wgmma ---
static __device__ __forceinline__ void wgmma_fence() { asm volatile("wgmma.fence.sync.aligned;" ::: "memory"); }
static __device__ __forceinline__ void wgmma_commit() { asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory"); }
template <int N>
static __device__ __forceinline__ void wgmma_wait() {
  asm volatile("wgmma.wait_group.sync.aligned %0;" ::"n"(N) : "memory");
}
// Ties the accumulator registers to this point of the program: the compiler may not move their reads or
// writes across it (the wgmma's writes are asynchronous, invisible to it).
template <int R>
static __device__ __forceinline__ void fence_operands(float (&d)[R]) {
#pragma unroll
  for (int i = 0; i < R; i++) asm volatile("" : "+f"(d[i])::"memory");
}

// Shared-memory matrix descriptor of a K-major operand in the 128-byte swizzle layout (PTX ISA, "Matrix
// Descriptor Format"; cute::GmmaDescriptor in cute/arch/mma_sm90_desc.hpp):
//   bits  0-13  start address >> 4
//   bits 16-29  leading byte offset >> 4: unused for swizzled K-major layouts, 1 as CUTLASS sets it
//   bits 32-45  stride byte offset >> 4: 1024 bytes from one group of 8 rows (8 x 128 B) to the next
//   bits 49-51  base offset 0: every stage buffer is 1024-byte aligned
//   bits 62-63  layout type 1 = SWIZZLE_128B
// The k8 slice kk (32 bytes) of a 128-byte row starts 32 kk bytes further: + 2 kk in the address field,
// as cute's DescriptorIterator advances it; the hardware applies the swizzle to the computed addresses.
static __device__ __forceinline__ uint64_t gmma_desc_sw128(uint32_t saddr) {
  return (uint64_t)((saddr & 0x3FFFFu) >> 4) | ((uint64_t)1 << 16) | ((uint64_t)(1024 >> 4) << 32) |
      ((uint64_t)1 << 62);
}

#define WG_F8(i)                                                                                              \
  "+f"(d[i]), "+f"(d[i + 1]), "+f"(d[i + 2]), "+f"(d[i + 3]), "+f"(d[i + 4]), "+f"(d[i + 5]), "+f"(d[i + 6]), \
      "+f"(d[i + 7])
#define WG_F32(i) WG_F8(i), WG_F8(i + 8), WG_F8(i + 16), WG_F8(i + 24)

// D (64 x 256, fp32) = A (64 x 8, tf32, descriptor da) * B (256 x 8, tf32, K-major, descriptor db)^T
// + (scale_d ? D : 0). d[] holds the accumulator fragment of this thread (layout: see the epilogue).
static __device__ __forceinline__ void wgmma_m64n256k8_tf32(float (&d)[128], uint64_t da, uint64_t db, int scale_d) {
  asm volatile(
      "{\n"
      ".reg .pred p;\n"
      "setp.ne.b32 p, %130, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n256k8.f32.tf32.tf32 {"
      "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
      "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, "
      "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, "
      "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63, "
      "%64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, "
      "%80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95, "
      "%96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107, %108, %109, %110, %111, "
      "%112, %113, %114, %115, %116, %117, %118, %119, %120, %121, %122, %123, %124, %125, %126, %127"
      "}, %128, %129, p, 1, 1;\n"
      "}\n"
      : WG_F32(0), WG_F32(32), WG_F32(64), WG_F32(96)
      : "l"(da), "l"(db), "r"(scale_d));
}

// The same with A from registers (RS form): a[0..3] = A(r, c), A(r + 8, c), A(r, c + 4), A(r + 8, c + 4)
// with r = 16 (warp % 4) + lane / 4, c = lane % 4 (cute ALayout_64x8; PTX ISA mma.m16n8k8 .tf32 A per
// warp), each a TF32 bit pattern. The registers are read asynchronously: not to be written before the
// wgmma's group has completed (wgmma.wait_group).
static __device__ __forceinline__ void wgmma_m64n256k8_tf32_rs(float (&d)[128], const uint32_t (&a)[4], uint64_t db,
                                                               int scale_d) {
  asm volatile(
      "{\n"
      ".reg .pred p;\n"
      "setp.ne.b32 p, %133, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n256k8.f32.tf32.tf32 {"
      "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
      "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, "
      "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, "
      "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63, "
      "%64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, "
      "%80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95, "
      "%96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107, %108, %109, %110, %111, "
      "%112, %113, %114, %115, %116, %117, %118, %119, %120, %121, %122, %123, %124, %125, %126, %127"
      "}, {%128, %129, %130, %131}, %132, p, 1, 1;\n"
      "}\n"
      : WG_F32(0), WG_F32(32), WG_F32(64), WG_F32(96)
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(db), "r"(scale_d));
}

// Tile t of the order: groups of `group` tile rows, down the rows of a group first, then across (as
// pipelined_kernel in kernels/matmul/matmul.cu), so the blocks running at once share A rows and Bt rows.
static __device__ __forceinline__ void wg_tile(unsigned t, unsigned tiles_m, unsigned tiles_n, unsigned group,
                                               unsigned &mt, unsigned &nt) {
  const unsigned per_group = group * tiles_n, first_m = t / per_group * group;
  const unsigned gsize = min(tiles_m - first_m, group), r = t % per_group;
  mt = first_m + r % gsize;
  nt = r / gsize;
}

// The ring's mbarriers, 8 bytes each after the stages: full[s] counts the producer's arrive.expect_tx (and
// the TMA bytes), empty[s] one arrive per consumer warp (8). Thread 0 sets them up; every thread waits.
static __device__ __forceinline__ void ring_init(uint32_t full0, uint32_t empty0, int stages) {
  if (threadIdx.x == 0) {
#pragma unroll
    for (int s = 0; s < stages; s++) {
      mbar_init(full0 + 8 * s, 1);
      mbar_init(empty0 + 8 * s, 8);
    }
    mbar_fence_init();
  }
  __syncthreads();
}

#endif // __CUDA_ARCH_FEAT_SM90_ALL

// ---------------------------------------------------------------------------
// Transpose (SS path): Bt = tf32_rna(B)^T, B is K x N, Bt is N x K, both row-major. Block (x, y) moves B
// rows 64 y .. 64 y + 63 (k), columns 64 x .. 64 x + 63 (n): 2 x 2 sub-tiles of 32 x 32 through shared
// memory padded to 33 columns. Thread t reads float4 (t % 8) of row t / 8 of each sub-tile (a warp: 4
// rows of 128 bytes) and writes float4 (t % 8) of Bt row t / 8 (4 rows of 128 bytes); both shared-memory
// phases are free of bank conflicts (bank = row + 4 (t % 8) + j mod 32 over the warp's 4 rows). N must
// be a multiple of 64 and K of 32 (a k sub-tile past K is skipped).
static __global__ void __launch_bounds__(TR_THREADS)
    tf32_transpose_kernel(const float *__restrict__ B, float *__restrict__ Bt, unsigned N, unsigned K) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  __shared__ float s[2][2][32][33];
  const unsigned t = threadIdx.x, r = t / 8, q = t % 8;
  const unsigned n0 = blockIdx.x * TR_TILE, k0 = blockIdx.y * TR_TILE;
  const bool k1 = k0 + 32 < K; // the second k sub-tile exists (the first always does)
  float4 v[2][2];
#pragma unroll
  for (int kt = 0; kt < 2; kt++)
#pragma unroll
    for (int nt = 0; nt < 2; nt++)
      if (kt == 0 || k1) v[kt][nt] = __ldg((const float4 *)&B[(size_t)(k0 + 32 * kt + r) * N + n0 + 32 * nt + 4 * q]);
#pragma unroll
  for (int kt = 0; kt < 2; kt++)
#pragma unroll
    for (int nt = 0; nt < 2; nt++)
      if (kt == 0 || k1) {
        s[kt][nt][r][4 * q + 0] = tf32_rna(v[kt][nt].x);
        s[kt][nt][r][4 * q + 1] = tf32_rna(v[kt][nt].y);
        s[kt][nt][r][4 * q + 2] = tf32_rna(v[kt][nt].z);
        s[kt][nt][r][4 * q + 3] = tf32_rna(v[kt][nt].w);
      }
  __syncthreads();
#pragma unroll
  for (int kt = 0; kt < 2; kt++)
#pragma unroll
    for (int nt = 0; nt < 2; nt++)
      if (kt == 0 || k1)
        st_global_v4(&Bt[(size_t)(n0 + 32 * nt + r) * K + k0 + 32 * kt + 4 * q], s[kt][nt][4 * q + 0][r],
                     s[kt][nt][4 * q + 1][r], s[kt][nt][4 * q + 2][r], s[kt][nt][4 * q + 3][r]);
#elif defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  __trap(); // built for sm_90 without the sm_90a features (wgmma, setmaxnreg): refuse loudly
#endif
}

// ---------------------------------------------------------------------------
// SS GEMM: C = A * Bt^T over the tiles blockIdx.x, blockIdx.x + gridDim.x, ... of the tiles_m x tiles_n
// tiles of 128 x 256. tmA: A (K inner, M rows), box 32 x 128; tmB: Bt (K inner, N rows), box 32 x 256;
// both fp32 with the 128-byte swizzle. ksteps = K / 32.
//
// Shared memory (dynamic, rounded up to 1024 bytes): 4 stages of [A 128 x 32 | Bt 256 x 32], each row of
// 32 fp32 one 128-byte line, the 16-byte chunks of row r at chunk ^ (r % 8) (TMA SWIZZLE_128B); then
// full[4] and empty[4] mbarriers.
// Protocol, with stage s and phase bit ph stepping together through the ring in the same order on both
// sides (tiles, then k-steps):
//   producer: wait empty[s] for parity ph ^ 1 (passes at once on the first lap), arrive.expect_tx(full[s],
//             stage bytes), TMA A and Bt into stage s completing on full[s].
//   consumer: wait full[s] for parity ph, 4 wgmmas, commit; wait_group 1 (the previous stage's wgmmas
//             are done) then lane 0 of each consumer warp arrives on the previous stage's empty barrier
//             (count 8: CUTLASS's PipelineTmaAsync arrives once per consumer warpgroup; once per warp
//             does not depend on a warp's wait_group covering the other warps' parts of the wgmma);
//             after a tile's last k-step wait_group 0 and release that stage.
// The first wgmma of each tile has scale-d 0, so the accumulators need no zeroing between tiles.
static __global__ void __launch_bounds__(WG_THREADS, 1)
    tf32_wgmma_kernel(const __grid_constant__ CUtensorMap tmA, const __grid_constant__ CUtensorMap tmB,
                      float *__restrict__ C, unsigned N, unsigned ksteps, unsigned tiles_m, unsigned tiles_n,
                      unsigned group) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  extern __shared__ __align__(1024) uint8_t wg_smem[];
  const uint32_t base = (smem_u32(wg_smem) + 1023u) & ~1023u;
  const uint32_t full0 = base + WG_STAGES * WG_STAGE_BYTES, empty0 = full0 + 8 * WG_STAGES;
  const unsigned wg = threadIdx.x / 128, tiles = tiles_m * tiles_n;
  ring_init(full0, empty0, WG_STAGES);

  if (wg == 0) {
    // Producer warpgroup: one thread issues every copy.
    setmaxnreg_dec<WG_PRODUCER_REGS>();
    if (threadIdx.x == 0) {
      tma_prefetch(&tmA);
      tma_prefetch(&tmB);
      uint32_t s = 0, ph = 0;
      for (unsigned t = blockIdx.x; t < tiles; t += gridDim.x) {
        unsigned mt, nt;
        wg_tile(t, tiles_m, tiles_n, group, mt, nt);
        const int m0 = (int)(mt * WG_BM), n0 = (int)(nt * WG_BN);
        for (unsigned ks = 0; ks < ksteps; ks++) {
          mbar_wait(empty0 + 8 * s, ph ^ 1);
          mbar_arrive_expect_tx(full0 + 8 * s, WG_STAGE_BYTES);
          const uint32_t a = base + s * WG_STAGE_BYTES;
          tma_load_2d(a, &tmA, full0 + 8 * s, (int)(ks * WG_BK), m0);
          tma_load_2d(a + WG_A_BYTES, &tmB, full0 + 8 * s, (int)(ks * WG_BK), n0);
          if (++s == WG_STAGES) s = 0, ph ^= 1;
        }
      }
    }
  } else {
    // Consumer warpgroup cw: rows 64 cw .. 64 cw + 63 of each tile.
    setmaxnreg_inc<WG_CONSUMER_REGS>();
    const unsigned cw = wg - 1, warp = (threadIdx.x / 32) % 4, lane = threadIdx.x % 32;
    const bool leader = lane == 0; // arrives on the empty barriers for its warp
    const uint64_t da0 = gmma_desc_sw128(base + cw * 64 * 128), db0 = gmma_desc_sw128(base + WG_A_BYTES);
    float d[WG_BN / 2];
#pragma unroll
    for (int i = 0; i < WG_BN / 2; i++) d[i] = 0.f;
    uint32_t s = 0, ph = 0;
    for (unsigned t = blockIdx.x; t < tiles; t += gridDim.x) {
      unsigned mt, nt;
      wg_tile(t, tiles_m, tiles_n, group, mt, nt);
      uint32_t prev = 0;
      fence_operands(d);
      for (unsigned ks = 0; ks < ksteps; ks++) {
        mbar_wait(full0 + 8 * s, ph);
        const uint64_t off = (s * WG_STAGE_BYTES) >> 4; // stage offset in the descriptors' 16-byte units
        wgmma_fence();
#pragma unroll
        for (int kk = 0; kk < WG_BK / 8; kk++) // k8 slice kk: 32 kk bytes into each 128-byte row
          wgmma_m64n256k8_tf32(d, da0 + off + 2 * kk, db0 + off + 2 * kk, (ks | kk) != 0);
        wgmma_commit();
        wgmma_wait<1>(); // the previous k-step's wgmmas are complete: its stage may be refilled
        if (ks > 0 && leader) mbar_arrive(empty0 + 8 * prev);
        prev = s;
        if (++s == WG_STAGES) s = 0, ph ^= 1;
      }
      wgmma_wait<0>();
      fence_operands(d);
      if (leader) mbar_arrive(empty0 + 8 * prev);

      // Accumulator fragment (PTX ISA "Register Fragments", wgmma .m64nNk8 D; cute CLayout_64xN): warp w of
      // the warpgroup holds rows 16 w .. 16 w + 15 of the 64; lane l: row 16 w + l / 4 (+ 8), columns
      // 8 i + 2 (l % 4) (+ 1): d[4 i] (row, col), d[4 i + 1] (row, col + 1), d[4 i + 2] (row + 8, col),
      // d[4 i + 3] (row + 8, col + 1), i = 0 .. 31. A warp's store instruction writes 8 rows x 32 bytes.
      const size_t row = (size_t)mt * WG_BM + 64 * cw + 16 * warp + lane / 4;
      float *const c0 = C + row * N + (size_t)nt * WG_BN + 2 * (lane % 4);
      float *const c1 = c0 + 8 * (size_t)N;
#pragma unroll
      for (int i = 0; i < WG_BN / 8; i++) {
        *(float2 *)(c0 + 8 * i) = make_float2(d[4 * i], d[4 * i + 1]);
        *(float2 *)(c1 + 8 * i) = make_float2(d[4 * i + 2], d[4 * i + 3]);
      }
    }
  }
#elif defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  __trap(); // built for sm_90 without the sm_90a features (wgmma, setmaxnreg): refuse loudly
#endif
}

// ---------------------------------------------------------------------------
// RS GEMM, no transpose pass: the block computes a 256 (m) x 128 (n) tile of C as its transpose,
// D = C^T (n x m) = B^T (n x k) * A^T (k x m): the wgmma A operand (64 n x 8 k per consumer) comes from
// registers, loaded from B's natural [k][n] tile in shared memory and rounded to nearest TF32 on the way;
// the wgmma B operand (8 k x 256 m, K-major) is A's [m][k] tile, as in the SS kernel. Same producer,
// ring and barriers; stage = A 256 x 32 (32 KB, one box) + B 32 (k) x 128 (n) as 4 boxes of 32 x 32
// (4 KB each, row k = 128 bytes of n, 128-byte swizzle). The consumer waits for its own group (wait_group
// 0) before it writes the fragment registers again; the other consumer's group keeps the tensor cores
// busy meanwhile.
#define RS_BM 256 /* rows of C (m) per tile: the wgmma N */
#define RS_BN 128 /* columns of C (n) per tile: 2 consumers x wgmma M 64 */
#define RS_STAGES 4
#define RS_A_BYTES (RS_BM * WG_BK * 4) /* 32 KB */
#define RS_B_BYTES (WG_BK * RS_BN * 4) /* 16 KB */
#define RS_STAGE_BYTES (RS_A_BYTES + RS_B_BYTES)
#define RS_SMEM ((size_t)RS_STAGES * RS_STAGE_BYTES + 1024 + 16 * RS_STAGES)

#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
static __device__ __forceinline__ float lds_f32(uint32_t addr) {
  float v;
  asm volatile("ld.shared.f32 %0, [%1];" : "=f"(v) : "r"(addr) : "memory");
  return v;
}
#endif

// tmA: A (K inner, M rows), box 32 x 256; tmB: B (N inner, K rows), box 32 x 32; both 128-byte swizzle.
static __global__ void __launch_bounds__(WG_THREADS, 1)
    tf32_wgmma_rs_kernel(const __grid_constant__ CUtensorMap tmA, const __grid_constant__ CUtensorMap tmB,
                         float *__restrict__ C, unsigned N, unsigned ksteps, unsigned tiles_m, unsigned tiles_n,
                         unsigned group) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  extern __shared__ __align__(1024) uint8_t wg_smem[];
  const uint32_t base = (smem_u32(wg_smem) + 1023u) & ~1023u;
  const uint32_t full0 = base + RS_STAGES * RS_STAGE_BYTES, empty0 = full0 + 8 * RS_STAGES;
  const unsigned wg = threadIdx.x / 128, tiles = tiles_m * tiles_n;
  ring_init(full0, empty0, RS_STAGES);

  if (wg == 0) {
    // The SS kernel's producer but for B's four boxes. Written out in each kernel: one shared producer left the
    // PTX the same but for register numbering, and ptxas then scheduled both kernels differently (34 and 89
    // instructions), which would take a re-bless of their benchmarks on every testbed.
    setmaxnreg_dec<WG_PRODUCER_REGS>();
    if (threadIdx.x == 0) {
      tma_prefetch(&tmA);
      tma_prefetch(&tmB);
      uint32_t s = 0, ph = 0;
      for (unsigned t = blockIdx.x; t < tiles; t += gridDim.x) {
        unsigned mt, nt;
        wg_tile(t, tiles_m, tiles_n, group, mt, nt);
        const int m0 = (int)(mt * RS_BM), n0 = (int)(nt * RS_BN);
        for (unsigned ks = 0; ks < ksteps; ks++) {
          mbar_wait(empty0 + 8 * s, ph ^ 1);
          mbar_arrive_expect_tx(full0 + 8 * s, RS_STAGE_BYTES);
          const uint32_t a = base + s * RS_STAGE_BYTES;
          tma_load_2d(a, &tmA, full0 + 8 * s, (int)(ks * WG_BK), m0);
#pragma unroll
          for (int j = 0; j < RS_BN / 32; j++)
            tma_load_2d(a + RS_A_BYTES + 4096 * j, &tmB, full0 + 8 * s, n0 + 32 * j, (int)(ks * WG_BK));
          if (++s == RS_STAGES) s = 0, ph ^= 1;
        }
      }
    }
  } else {
    setmaxnreg_inc<WG_CONSUMER_REGS>();
    const unsigned cw = wg - 1, warp = (threadIdx.x / 32) % 4, lane = threadIdx.x % 32;
    const bool leader = lane == 0; // arrives on the empty barriers for its warp
    // This thread's fragment rows (n within the tile) r = 64 cw + 16 warp + lane / 4 and r + 8, k = lane % 4
    // and + 4 of each k8 slice. B element (k, n) sits in box n / 32 at byte k * 128 + (((n % 32) / 4) ^
    // (k % 8)) * 16 + (n % 4) * 4 (SWIZZLE_128B; k8 slice kk adds 8 kk rows = 1024 kk bytes, k % 8
    // unchanged). r and r + 8 share a box: (16 (warp % 2) + lane / 4 + 8) < 32.
    const unsigned nn = 16 * (warp % 2) + lane / 4;
    const uint32_t box = RS_A_BYTES + 4096 * (2 * cw + warp / 2);
    uint32_t off[4]; // a[v], v = 0: (k, r), 1: (k, r + 8), 2: (k + 4, r), 3: (k + 4, r + 8)
#pragma unroll
    for (int v = 0; v < 4; v++) {
      const unsigned k = lane % 4 + 4 * (v / 2), n = nn + 8 * (v % 2);
      off[v] = box + k * 128 + (((n / 4) ^ k) * 16) + (n % 4) * 4;
    }
    const uint64_t db0 = gmma_desc_sw128(base);
    float d[128];
#pragma unroll
    for (int i = 0; i < 128; i++) d[i] = 0.f;
    uint32_t s = 0, ph = 0;
    for (unsigned t = blockIdx.x; t < tiles; t += gridDim.x) {
      unsigned mt, nt;
      wg_tile(t, tiles_m, tiles_n, group, mt, nt);
      fence_operands(d);
      for (unsigned ks = 0; ks < ksteps; ks++) {
        mbar_wait(full0 + 8 * s, ph);
        const uint32_t st = base + s * RS_STAGE_BYTES;
        uint32_t a[WG_BK / 8][4];
#pragma unroll
        for (int kk = 0; kk < WG_BK / 8; kk++)
#pragma unroll
          for (int v = 0; v < 4; v++) a[kk][v] = __float_as_uint(tf32_rna(lds_f32(st + off[v] + 1024 * kk)));
        const uint64_t dofs = (s * RS_STAGE_BYTES) >> 4;
        wgmma_fence();
#pragma unroll
        for (int kk = 0; kk < WG_BK / 8; kk++) wgmma_m64n256k8_tf32_rs(d, a[kk], db0 + dofs + 2 * kk, (ks | kk) != 0);
        wgmma_commit();
        wgmma_wait<0>(); // this group is done: its stage and fragment registers are free
        if (leader) mbar_arrive(empty0 + 8 * s);
        if (++s == RS_STAGES) s = 0, ph ^= 1;
      }
      fence_operands(d);
      // d[4 i + 2 h + c] = D(r + 8 h, 8 i + 2 (lane % 4) + c) = C(m0 + 8 i + 2 (lane % 4) + c, n0 + r + 8 h),
      // r = 64 cw + 16 warp + lane / 4: each store instruction of a warp writes 4 rows x 32 bytes.
      float *const cp =
          C + ((size_t)mt * RS_BM + 2 * (lane % 4)) * N + (size_t)nt * RS_BN + 64 * cw + 16 * warp + lane / 4;
#pragma unroll
      for (int i = 0; i < 32; i++)
#pragma unroll
        for (int h = 0; h < 2; h++)
#pragma unroll
          for (int c = 0; c < 2; c++) cp[(size_t)(8 * i + c) * N + 8 * h] = d[4 * i + 2 * h + c];
    }
  }
#elif defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  __trap(); // built for sm_90 without the sm_90a features (wgmma, setmaxnreg): refuse loudly
#endif
}

// ---------------------------------------------------------------------------
// Host side.

// cuTensorMapEncodeTiled from the driver through the runtime (no -lcuda), looked up once per process.
static void *g_wg_encode;

static cudaError_t wg_encode_fn(PFN_cuTensorMapEncodeTiled_v12000 *fn) {
  void *p = __atomic_load_n(&g_wg_encode, __ATOMIC_ACQUIRE);
  if (!p) {
    cudaDriverEntryPointQueryResult q = cudaDriverEntryPointSymbolNotFound;
    cudaError_t err = cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &p, 12000, cudaEnableDefault, &q);
    if (err != cudaSuccess) return err;
    if (q != cudaDriverEntryPointSuccess || !p) return cudaErrorNotSupported;
    __atomic_store_n(&g_wg_encode, p, __ATOMIC_RELEASE);
  }
  *fn = (PFN_cuTensorMapEncodeTiled_v12000)p;
  return cudaSuccess;
}

// A rows x cols row-major fp32 matrix (cols contiguous) as a 2D tensor map of boxes of 32 (cols) x
// box_rows, 128-byte swizzle. Encoded on every call: it holds the matrix's address.
static cudaError_t wg_tensor_map(CUtensorMap *map, const float *ptr, int rows, int cols, unsigned box_rows) {
  PFN_cuTensorMapEncodeTiled_v12000 encode;
  cudaError_t err = wg_encode_fn(&encode);
  if (err != cudaSuccess) return err;
  const cuuint64_t dims[2] = {(cuuint64_t)cols, (cuuint64_t)rows};
  const cuuint64_t strides[1] = {(cuuint64_t)cols * sizeof(float)};
  const cuuint32_t box[2] = {WG_BK, box_rows};
  const cuuint32_t estrides[2] = {1, 1};
  CUresult r = encode(map, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 2, (void *)ptr, dims, strides, box, estrides,
                      CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B, CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
                      CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  return r == CUDA_SUCCESS ? cudaSuccess : cudaErrorInvalidValue;
}

// Compute capability and SMs of each device, read once (both are needed on every call). A device past
// the table is asked every time.
#define WG_DEVICES 64
static int g_wg_info[WG_DEVICES]; // (major * 10 + minor) << 16 | SMs; 0 = not read yet

static cudaError_t wg_device(int *cc, int *sms) {
  int dev = 0, info = 0;
  cudaError_t err = cudaGetDevice(&dev);
  if (err != cudaSuccess) return err;
  const bool cached = dev >= 0 && dev < WG_DEVICES;
  if (!cached || (info = __atomic_load_n(&g_wg_info[dev], __ATOMIC_RELAXED)) == 0) {
    int major = 0, minor = 0, n = 0;
    if ((err = cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev)) != cudaSuccess ||
        (err = cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, dev)) != cudaSuccess ||
        (err = cudaDeviceGetAttribute(&n, cudaDevAttrMultiProcessorCount, dev)) != cudaSuccess)
      return err;
    info = (major * 10 + minor) << 16 | (n & 0xffff);
    if (cached) __atomic_store_n(&g_wg_info[dev], info, __ATOMIC_RELAXED);
  }
  *cc = info >> 16;
  *sms = info & 0xffff;
  return cudaSuccess;
}

// Whether the persistent kernel of matmul_tf32_wgmma (rs: matmul_tf32_wgmma_rs) computes M x N x K (K > 0)
// on a device of compute capability cc with sms SMs, 16-byte alignment aside: whole tiles (SS 128 x 256 and
// K a multiple of 32, RS 256 x 128), fewer than 2^31 of them (the kernels' 32-bit tile counter) and, SS, K
// within the transpose grid's y limit (K <= 4 194 240). Then *tiles of C and the *grid of blocks that walk
// them: persistent, one block per SM (one fits) or one per tile when there are fewer, so that a tile's loads
// overlap the previous tile's epilogue (one block per tile was 12 % slower at 4096^3). The launchers and
// matmul_tf32_wgmma_grid (the Check test's view of the grid) share it.
static bool wg_plan(int M, int N, int K, bool rs, int cc, int sms, unsigned long long *tiles, unsigned *grid) {
  const int bm = rs ? RS_BM : WG_BM, bn = rs ? RS_BN : WG_BN;
  if (cc != 90 || M % bm != 0 || N % bn != 0 || K % WG_BK != 0) return false;
  if (!rs && matmul_tiles(K, TR_TILE) > 65535u) return false;
  *tiles = (unsigned long long)(M / bm) * (unsigned long long)(N / bn);
  if (*tiles > 0x7fffffffull) return false;
  *grid = *tiles > (unsigned long long)sms ? (unsigned)sms : (unsigned)*tiles;
  return true;
}

extern "C" cudaError_t matmul_tf32_wgmma_grid(int M, int N, int K, int rs, unsigned long long *tiles,
                                              unsigned *blocks) {
  if (!tiles || !blocks || M < 0 || N < 0 || K < 0) return cudaErrorInvalidValue;
  *tiles = 0;
  *blocks = 0;
  if (M == 0 || N == 0 || K == 0) return cudaSuccess; // no kernel: matmul_prepare's no-op or memset
  int cc, sms;
  cudaError_t err = wg_device(&cc, &sms);
  if (err != cudaSuccess) return err;
  unsigned long long t;
  unsigned g;
  if (wg_plan(M, N, K, rs != 0, cc, sms, &t, &g)) {
    *tiles = t;
    *blocks = g;
  }
  return cudaSuccess;
}

extern "C" cudaError_t matmul_tf32_wgmma(const float *A, const float *B, float *C, int M, int N, int K,
                                         cudaStream_t stream) {
  int run;
  cudaError_t err = matmul_prepare(A, B, C, M, N, K, stream, &run);
  if (err != cudaSuccess || !run) return err;
  int cc, sms;
  if ((err = wg_device(&cc, &sms)) != cudaSuccess) return err;
  unsigned long long tiles;
  unsigned grid;
  if (!is_aligned(A, 16) || !is_aligned(B, 16) || !is_aligned(C, 16) ||
      !wg_plan(M, N, K, false, cc, sms, &tiles, &grid))
    return matmul_tf32_mma(A, B, C, M, N, K, stream);
  const unsigned tr_y = matmul_tiles(K, TR_TILE); // K > 0 here; at most 65535 (wg_plan)

  // Bt: 4 N K bytes (64 MB at 4096^2), kept per context and stream for the next call.
  void *ws;
  if ((err = stream_workspace_for_current_context(stream, (size_t)N * (size_t)K * sizeof(float), &ws)) != cudaSuccess)
    return err;
  float *const Bt = (float *)ws;
  CUtensorMap tmA, tmB;
  if ((err = wg_tensor_map(&tmA, A, M, K, WG_BM)) != cudaSuccess) return err;
  if ((err = wg_tensor_map(&tmB, Bt, N, K, WG_BN)) != cudaSuccess) return err;
  // 193 KB of shared memory: the limit belongs to the function in the current context, so it is set on
  // every call.
  if ((err = cudaFuncSetAttribute(tf32_wgmma_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)WG_SMEM)) !=
      cudaSuccess)
    return err;

  tf32_transpose_kernel<<<dim3((unsigned)(N / TR_TILE), tr_y), TR_THREADS, 0, stream>>>(B, Bt, (unsigned)N,
                                                                                        (unsigned)K);
  if ((err = cudaGetLastError()) != cudaSuccess) return err;
  // Persistent (wg_plan's grid): one block per SM, each walking its tiles.
  tf32_wgmma_kernel<<<grid, WG_THREADS, WG_SMEM, stream>>>(tmA, tmB, C, (unsigned)N, (unsigned)(K / WG_BK),
                                                           (unsigned)(M / WG_BM), (unsigned)(N / WG_BN), WG_GROUP);
  return cudaGetLastError();
}

extern "C" cudaError_t matmul_tf32_wgmma_rs(const float *A, const float *B, float *C, int M, int N, int K,
                                            cudaStream_t stream) {
  int run;
  cudaError_t err = matmul_prepare(A, B, C, M, N, K, stream, &run);
  if (err != cudaSuccess || !run) return err;
  int cc, sms;
  if ((err = wg_device(&cc, &sms)) != cudaSuccess) return err;
  unsigned long long tiles;
  unsigned grid;
  if (!is_aligned(A, 16) || !is_aligned(B, 16) || !is_aligned(C, 16) || !wg_plan(M, N, K, true, cc, sms, &tiles, &grid))
    return matmul_tf32_wgmma(A, B, C, M, N, K, stream);
  // No transpose and no workspace: B's tiles are read as they are, in 32 x 32 boxes.
  CUtensorMap tmA, tmB;
  if ((err = wg_tensor_map(&tmA, A, M, K, RS_BM)) != cudaSuccess) return err;
  if ((err = wg_tensor_map(&tmB, B, K, N, WG_BK)) != cudaSuccess) return err;
  if ((err = cudaFuncSetAttribute(tf32_wgmma_rs_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)RS_SMEM)) !=
      cudaSuccess)
    return err;
  tf32_wgmma_rs_kernel<<<grid, WG_THREADS, RS_SMEM, stream>>>(tmA, tmB, C, (unsigned)N, (unsigned)(K / WG_BK),
                                                              (unsigned)(M / RS_BM), (unsigned)(N / RS_BN), WG_GROUP);
  return cudaGetLastError();
}
