/* Correctness of kernels/matmul against an fp64 CPU reference.
 * Every variant runs on every shape below; C is poisoned before each run,
 * every element is checked, guard zones catch writes past either end, and A and B
 * must come back unchanged after every run.
 *
 * Tolerances, per element, with S_ij = sum_k |a_ik| |b_kj| computed alongside the fp64 references:
 * - fp32 variants and the library references (whose TF32 conversion cuBLAS does not state): against the exact
 *   (fp64) product of the fp32 inputs, within matmul_rtol(v, K) * S_ij (kernels/matmul/matmul_variants.h: 2 K u,
 *   plus 4 u_tf32 + 4 u_tf32^2 for cuBLAS TF32);
 * - our TF32 variants: against the exact product of the inputs as their tensor cores take them (tf32_rna, tf32_trunc
 *   below: both rounded to the nearest; wgmma's A truncated), within the fp32 bound 2 K u S_ij: a product of two
 *   TF32 values is exact in fp32, only the fp32 accumulation errs. Held to the TF32 bound instead (2 u_tf32 S_ij,
 *   over 30 times wider at K = 1024), a lost term would pass on most elements, and rounding that differs from the
 *   documented one on every element (tf32_rounding_as_documented).
 * A lost or repeated term is typically |a b| ~ S / K, which exceeds 2 K u S by 1 / (2 K^2 u) >= 8 for every K
 * here (K <= 1024).
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/matmul/matmul.h"
#include "kernels/matmul/matmul_variants.h"
#include "tests/support/gpu_check.h"
#include "tests/support/host_check.h"

/* The variants and their tolerance: kernels/matmul/matmul_variants.c. */
#define NVARIANTS (int)matmul_nvariants

/* More than 2 x SMs tiles on 132 SMs for both wgmma kernels, whose grid is min(tiles, SMs): 4096 / 128 x 2304 / 256
 * = 288 tiles of 128 x 256 (tf32_wgmma) and 4096 / 256 x 2304 / 128 = 288 of 256 x 128 (tf32_wgmma_rs), so blocks
 * 0..23 walk 3 tiles and the others 2: the mbarrier phases carried from one tile to the next, the accumulator
 * restarted, a tile stored while the next one loads. K = 96 is 3 k-steps of 32 against 4 stages, so the tiles
 * of a block start at stages 0, 3 and 2 and the ring's phase flips inside a tile. 9.1e8 multiply-adds in the
 * fp64 reference; whole tiles for pipelined, wide, tf32_mma too (splitk: 288 tiles, S = 1, wide). */
#define PERSISTENT_SHAPE 4096, 2304, 96

/* M x N x K. Tiles are 16, 32, 64 (tf32_wmma) and 128 x 128 x 8 (regblock and warptile,
 * which take float4 paths only when K % 4 == 0 and N % 4 == 0); pipelined takes whole 128 x 128 tiles and
 * k-steps of 16 only (else warptile runs), wide and splitk whole 128 x 256 tiles and k-steps of 8 (else
 * pipelined runs), splitk cuts K in S = 1..4 parts; tf32_mma whole 128 x 256 or 128 x 128 tiles and k-steps
 * of 32 (else tf32_wmma), tf32_wgmma whole 128 x 256 tiles and k-steps of 32 (else tf32_mma), tf32_wgmma_rs
 * M a multiple of 256, N of 128, K of 32 (else tf32_wgmma). */
static const struct {
  int M, N, K;
} kShapes[] = {
    {1, 1, 1},
    {3, 5, 7},
    {17, 31, 13},
    {64, 64, 64},
    {127, 129, 65},
    {255, 257, 511},
    {513, 1031, 77},
    {33, 65, 1}, /* K = 1 */
    {130, 258, 1},
    {5, 7, 0}, /* K = 0: C = 0 */
    {0, 5, 3},
    {4, 0, 3},     /* empty C */
    {96, 130, 64}, /* K % 4 == 0 but N % 4 != 0: scalar fallback */
    {130, 96, 66}, /* N % 4 == 0 but K % 4 != 0: scalar fallback */
    {4, 4, 4},
    {128, 128, 8},   /* one whole regblock tile and k-step */
    {256, 512, 128}, /* whole tiles only: regblock's float4 path, no edges */
    {200, 204, 212}, /* float4 path with edge tiles and a partial k-step */
    {1, 1024, 1024},
    {1024, 1, 1024},    /* a row times a matrix, a matrix times a column */
    {1000, 1004, 1012}, /* large: full float4 tiles inside, ragged edges in M, N and K */
    {256, 384, 48},     /* whole 128x128 tiles and k-steps of 16: pipelined's own path (3 k-steps, */
    {384, 128, 208},    /* fewer than its 4 stages; 13, more than them); misaligned: warptile's */
    {128, 256, 8},      /* one whole wide tile and k-step (fewer k-steps than its 3 stages) */
    {384, 768, 160},    /* wide, tf32_mma's 128x256 and tf32_wgmma's own paths, 5 k-steps of 32 (wgmma: more */
                        /* than its 4 stages; 9 tiles, 9 blocks of one tile each); rs: M not of 256, tf32_wgmma */
    {512, 384, 96},     /* tf32_wgmma_rs's own path (3 k-steps); tf32_mma's 128x128; wide: N not of 256 */
    {384, 640, 96},     /* tf32_mma's 128x128 path: N a multiple of 128, not 256 */
    /* splitk (the counts, from matmul_splitk_splits, are checked by splitk_counts below): */
    {128, 256, 256},    /* one tile, S = 2 */
    {128, 256, 384},    /* S = 3 (K / 4 = 96 is under 128) */
    {256, 256, 1024},   /* S = 4 */
    {512, 512, 512},    /* S = 4 on 32 SMs or more: 4 x 2 tiles, the grouped tile order in both directions */
    {128, 256, 268},    /* whole for wide, but K / 2 = 134 is not a multiple of 8: S = 1 */
    {1152, 2048, 256},  /* 72 tiles: S = 2 needs 144 block slots; on 132 SMs: S = 1 (wide) */
    {1024, 1024, 1024}, /* the benchmark's smallest size: S = 4 on 128 SMs or more (H100, H200: 132) */
    {PERSISTENT_SHAPE}, /* tf32_wgmma(_rs)'s blocks walk 2 or 3 tiles each (wgmma_persistent_grid below) */
    /* M past the grid's y limit (65535), which counts tiles of M: naive and tiled16 (524289 of 16) and tiled32
     * (262145 of 32) run their grid-stride loops over grid y; warptile's 65537 tiles of 128 do not fit one
     * grid (tile_grid: !fits), so regblock computes it (pipelined, wide, splitk: not whole tiles, warptile).
     * 5e7 multiply-adds for the reference; 25e6 elements of C. */
    {8388609, 3, 2},
};
#define NSHAPES (int)(sizeof kShapes / sizeof kShapes[0])

typedef struct {
  int M, N, K;
  float *a, *b;
  double *want, *scale;
  double *want_rna, *want_trunc; /* the inputs as TF32: A and B rounded to the nearest; A truncated, B rounded */
} problem;

/* The TF32 value of x the tensor cores multiply: its sign, exponent and top 10 fraction bits, rounded to the
 * nearest with ties away from zero (cvt.rna.tf32.f32) or truncated toward zero (what wgmma uses of fp32 bits read
 * from shared memory). Inputs here are finite and far from overflow. */
static float tf32_rna(float x) {
  uint32_t u;
  memcpy(&u, &x, sizeof u);
  u = (u + 0x1000u) & ~0x1fffu;
  memcpy(&x, &u, sizeof x);
  return x;
}

static float tf32_trunc(float x) {
  uint32_t u;
  memcpy(&u, &x, sizeof u);
  u &= ~0x1fffu;
  memcpy(&x, &u, sizeof x);
  return x;
}

/* Rows of the reference per chunk of for_each_chunk. */
#define REF_ROWS 16

typedef struct {
  const problem *p;
  const double *bd, *babs, *brna; /* B, |B| and B rounded to TF32, as doubles */
} ref_job;

/* Rows REF_ROWS c .. REF_ROWS c + REF_ROWS - 1 of the reference and its error scale, in i-k-j order
 * (unit stride in the inner loop). Each row is summed in the same order on any thread: the result does
 * not depend on the thread count. */
static void ref_rows(void *arg, size_t c, size_t thread) {
  const ref_job *j = arg;
  const problem *p = j->p;
  size_t N = (size_t)p->N, K = (size_t)p->K, end = (c + 1) * REF_ROWS;
  (void)thread;
  if (end > (size_t)p->M) end = (size_t)p->M;
  for (size_t i = c * REF_ROWS; i < end; i++) {
    double *w = p->want + i * N, *s = p->scale + i * N, *wr = p->want_rna + i * N, *wt = p->want_trunc + i * N;
    for (size_t k = 0; k < K; k++) {
      float af = p->a[i * K + k];
      double a = af, aa = fabs(a), ar = tf32_rna(af), at = tf32_trunc(af);
      const double *brow = j->bd + k * N, *babsrow = j->babs + k * N, *brrow = j->brna + k * N;
      for (size_t jj = 0; jj < N; jj++) {
        w[jj] += a * brow[jj];
        s[jj] += aa * babsrow[jj];
        wr[jj] += ar * brrow[jj];
        wt[jj] += at * brrow[jj];
      }
    }
  }
}

/* Fresh random A, B in [-1, 1) and the fp64 references with their error scale, rows on several threads
 * (for_each_chunk) so that the largest cases (about 1e9 multiply-adds) take a fraction of a second.
 * rounding_probe: every input positive with its 13 low fraction bits set, so that rounding to TF32 and
 * truncating differ in the same direction on every term (tf32_rounding_as_documented). */
static problem make_problem_of(int M, int N, int K, int rounding_probe) {
  problem p = {.M = M, .N = N, .K = K};
  size_t na = (size_t)M * K, nb = (size_t)K * N, nc = (size_t)M * N;
  test_rng rng;
  rng_seed(&rng, test_seed() ^ ((uint64_t)M * 2654435761u + (uint64_t)N * 40503u + (uint64_t)K * 977u));
  p.a = malloc((na + 1) * sizeof(float));
  p.b = malloc((nb + 1) * sizeof(float));
  p.want = calloc(nc + 1, sizeof(double));
  p.scale = calloc(nc + 1, sizeof(double));
  p.want_rna = calloc(nc + 1, sizeof(double));
  p.want_trunc = calloc(nc + 1, sizeof(double));
  double *bd = malloc((nb + 1) * sizeof(double)), *babs = malloc((nb + 1) * sizeof(double)),
         *brna = malloc((nb + 1) * sizeof(double));
  ck_assert(p.a && p.b && p.want && p.scale && p.want_rna && p.want_trunc && bd && babs && brna);
  fill_uniform(p.a, na, -1.0f, 1.0f, &rng);
  fill_uniform(p.b, nb, -1.0f, 1.0f, &rng);
  for (size_t i = 0; rounding_probe && i < na + nb; i++) {
    float *x = i < na ? &p.a[i] : &p.b[i - na];
    uint32_t u;
    memcpy(&u, x, sizeof u);
    u = (u & 0x7fffffffu) | 0x1fffu; /* |x| with its low 13 fraction bits set: 0.5 ulp_tf32 from either neighbour */
    memcpy(x, &u, sizeof u);
  }
  for (size_t i = 0; i < nb; i++) {
    bd[i] = p.b[i];
    babs[i] = fabs(bd[i]);
    brna[i] = tf32_rna(p.b[i]);
  }
  ref_job job = {&p, bd, babs, brna};
  for_each_chunk(((size_t)M + REF_ROWS - 1) / REF_ROWS, ref_rows, &job);
  free(bd);
  free(babs);
  free(brna);
  return p;
}

static problem make_problem(int M, int N, int K) { return make_problem_of(M, N, K, 0); }

static void free_problem(problem *p) {
  free(p->a);
  free(p->b);
  free(p->want);
  free(p->scale);
  free(p->want_rna);
  free(p->want_trunc);
}

/* What variant v's result on p is checked against, with its rtol (per S_ij) and in words; `aligned`: A, B, C
 * 16-byte aligned. Our TF32 variants against the exact product of their inputs as taken (the header): both
 * rounded on tf32_wmma's and tf32_mma's paths; on the wgmma kernels' own paths (matmul_tf32_wgmma_grid: whole
 * tiles, aligned, compute capability 9.0) A truncated, else they run tf32_mma. tf32_wgmma_rs falls back on
 * tf32_wgmma first. */
static const double *expected(const matmul_variant *v, const problem *p, int aligned, double *rtol,
                              const char **model) {
  if (v->inputs == MATMUL_FP32 || v->reference) {
    *rtol = matmul_rtol(v, p->K);
    *model = v->inputs == MATMUL_FP32 ? "fp32" : "library TF32";
    return p->want;
  }
  *rtol = 2.0 * p->K * 0x1p-24; /* the fp32 accumulation alone */
  int truncated = 0;
  if (v->inputs == MATMUL_TF32_TRUNC && aligned && p->M > 0 && p->N > 0 && p->K > 0) {
    unsigned long long tiles;
    unsigned blocks_ss, blocks_rs = 0;
    CUDA_OK(matmul_tf32_wgmma_grid(p->M, p->N, p->K, 0, &tiles, &blocks_ss));
    if (strcmp(v->name, "tf32_wgmma_rs") == 0) CUDA_OK(matmul_tf32_wgmma_grid(p->M, p->N, p->K, 1, &tiles, &blocks_rs));
    truncated = blocks_ss > 0 || blocks_rs > 0;
  }
  *model = truncated ? "TF32 A trunc" : "TF32 rna";
  return truncated ? p->want_trunc : p->want_rna;
}

/* A and B on the device came back as p's, guards included: variants read them only (splitk and tf32_wgmma
 * write workspaces of their own, never the inputs). */
static void check_inputs(const char *name, const problem *p, const guarded_buf *da, const guarded_buf *db) {
  size_t na = (size_t)p->M * p->K, nb = (size_t)p->K * p->N;
  float *back = malloc(((na > nb ? na : nb) + 1) * sizeof(float));
  ck_assert_ptr_nonnull(back);
  gbuf_download(da, back);
  ck_assert_msg(na == 0 || memcmp(back, p->a, na * sizeof(float)) == 0, "%s M=%d N=%d K=%d: A was modified", name, p->M,
                p->N, p->K);
  gbuf_download(db, back);
  ck_assert_msg(nb == 0 || memcmp(back, p->b, nb * sizeof(float)) == 0, "%s M=%d N=%d K=%d: B was modified", name, p->M,
                p->N, p->K);
  free(back);
}

/* Runs variant v on p with the given float misalignments of A, B, C and checks
 * every element of C. */
static void check_variant(int v, const problem *p, size_t off_a, size_t off_b, size_t off_c) {
  int M = p->M, N = p->N, K = p->K;
  size_t nc = (size_t)M * N;
  double rtol;
  const char *model;
  const double *want =
      expected(&matmul_variants[v], p, off_a % 4 == 0 && off_b % 4 == 0 && off_c % 4 == 0, &rtol, &model);
  guarded_buf da = gbuf_alloc((size_t)M * K, off_a), db = gbuf_alloc((size_t)K * N, off_b), dc = gbuf_alloc(nc, off_c);
  gbuf_upload(&da, p->a);
  gbuf_upload(&db, p->b);
  float *got = malloc((nc + 1) * sizeof(float));
  ck_assert_ptr_nonnull(got);
  CUDA_OK(matmul_variants[v].fn(da.ptr, db.ptr, dc.ptr, M, N, K, 0));
  CUDA_OK(cudaDeviceSynchronize());
  check_inputs(matmul_variants[v].name, p, &da, &db);
  gbuf_download(&dc, got);
  compare_report r = compare_f32(got, want, p->scale, nc, (tolerance){.rel = rtol, .rel_to_scale = 1});
  char line[256];
  format_report(&r, line, sizeof line);
  printf("%-9s M=%-4d N=%-4d K=%-4d offsets a=%zu b=%zu c=%zu %s rtol=%.2g*S: %s %s\n", matmul_variants[v].name, M, N,
         K, off_a, off_b, off_c, model, rtol, line, r.bad ? "FAIL" : "ok");
  fflush(stdout);
  ck_assert_msg(r.bad == 0, "%s M=%d N=%d K=%d offsets %zu/%zu/%zu: %s", matmul_variants[v].name, M, N, K, off_a, off_b,
                off_c, line);
  free(got);
  gbuf_free(&da);
  gbuf_free(&db);
  gbuf_free(&dc);
}

START_TEST(all_variants_one_shape) {
  problem p = make_problem(kShapes[_i].M, kShapes[_i].N, kShapes[_i].K);
  for (int v = 0; v < NVARIANTS; v++) check_variant(v, &p, 0, 0, 0);
  free_problem(&p);
}
END_TEST

/* Shapes that allow float4 everywhere, with one pointer at a time (then all three) off 16-byte alignment: the
 * vector paths must step aside. 200 x 204 x 212 has edge tiles and a partial k-step (regblock's and warptile's
 * guards; the whole-tile paths fall back on the shape before their alignment guard). 512 x 512 x 1024 is whole
 * tiles of every path: pipelined (128 x 128, k-steps of 16), wide and splitk (128 x 256, k-steps of 8; splitk
 * 8 tiles, S = 4 where 32 SMs or more), tf32_mma (128 x 256, k-steps of 32), tf32_wgmma (128 x 256) and
 * tf32_wgmma_rs (256 x 128): only their 16-byte alignment guards send it to the fallbacks. */
static const struct {
  int M, N, K;
  int whole; /* whole tiles of every path: checked below where a path says what it takes */
} kMisalignedShapes[] = {{200, 204, 212, 0}, {512, 512, 1024, 1}};
#define NMISALIGNED (int)(sizeof kMisalignedShapes / sizeof kMisalignedShapes[0])

START_TEST(misaligned_pointers) {
  static const size_t offsets[][3] = {{1, 0, 0}, {0, 2, 0}, {0, 0, 3}, {3, 1, 2}};
  const int M = kMisalignedShapes[_i].M, N = kMisalignedShapes[_i].N, K = kMisalignedShapes[_i].K;
  if (kMisalignedShapes[_i].whole) {
    /* Aligned, splitk and the wgmma kernels would take the shape (the others' rules are above): each
     * misaligned run below goes through their alignment guards, not a shape fallback. */
    int S, dev, cc_major, cc_minor;
    CUDA_OK(matmul_splitk_splits(M, N, K, &S));
    ck_assert_msg(S > 1, "%d x %d x %d: splitk does not split (S = %d), its guard is not reached", M, N, K, S);
    CUDA_OK(cudaGetDevice(&dev));
    CUDA_OK(cudaDeviceGetAttribute(&cc_major, cudaDevAttrComputeCapabilityMajor, dev));
    CUDA_OK(cudaDeviceGetAttribute(&cc_minor, cudaDevAttrComputeCapabilityMinor, dev));
    for (int rs = 0; rs < 2 && cc_major == 9 && cc_minor == 0; rs++) {
      unsigned long long tiles;
      unsigned blocks;
      CUDA_OK(matmul_tf32_wgmma_grid(M, N, K, rs, &tiles, &blocks));
      ck_assert_msg(blocks > 0, "%d x %d x %d: not whole tiles of tf32_wgmma%s", M, N, K, rs ? "_rs" : "");
    }
  }
  problem p = make_problem(M, N, K);
  for (int o = 0; o < 4; o++)
    for (int v = 0; v < NVARIANTS; v++) check_variant(v, &p, offsets[o][0], offsets[o][1], offsets[o][2]);
  free_problem(&p);
}
END_TEST

/* Bad arguments are reported, never launched; empty C accepts NULL. */
START_TEST(rejects_bad_arguments) {
  float *d;
  CUDA_OK(cudaMalloc((void **)&d, 256 * sizeof(float)));
  const float *odd = (const float *)((const char *)d + 2);
  for (int v = 0; v < NVARIANTS; v++) {
    matmul_fn fn = matmul_variants[v].fn;
    ck_assert_int_eq(fn(NULL, NULL, NULL, 0, 4, 4, 0), cudaSuccess);
    ck_assert_int_eq(fn(NULL, NULL, NULL, 4, 0, 4, 0), cudaSuccess);
    ck_assert_int_eq(fn(d, d + 64, d + 128, -1, 4, 4, 0), cudaErrorInvalidValue);
    ck_assert_int_eq(fn(d, d + 64, d + 128, 4, -1, 4, 0), cudaErrorInvalidValue);
    ck_assert_int_eq(fn(d, d + 64, d + 128, 4, 4, -1, 0), cudaErrorInvalidValue);
    ck_assert_int_eq(fn(NULL, d + 64, d + 128, 4, 4, 4, 0), cudaErrorInvalidValue);
    ck_assert_int_eq(fn(d, NULL, d + 128, 4, 4, 4, 0), cudaErrorInvalidValue);
    ck_assert_int_eq(fn(d, d + 64, NULL, 4, 4, 4, 0), cudaErrorInvalidValue);
    ck_assert_int_eq(fn(odd, d + 64, d + 128, 4, 4, 4, 0), cudaErrorMisalignedAddress);
  }
  CUDA_OK(cudaGetLastError());
  CUDA_OK(cudaFree(d));
}
END_TEST

/* The splitk variant of the table (its accuracy model). */
static const matmul_variant *splitk_variant(void) {
  for (size_t v = 0; v < matmul_nvariants; v++)
    if (strcmp(matmul_variants[v].name, "splitk") == 0) return &matmul_variants[v];
  ck_abort_msg("no splitk in matmul_variants");
  return NULL;
}

/* The split counts matmul_splitk chooses, S = the largest of 1..4 that K allows (K / S a multiple of 8
 * and >= 128) with tiles x S <= the resident blocks of wide's kernel, one per SM (its 256 threads of
 * over 200 registers): the 128 x 256 tiles and the S that K allows worked out by hand, so that the shapes
 * above are known to reach each path on this device (on 132 SMs, H100 and H200: S = 2, 3, 4 and 4 for the
 * first four splitk shapes of kShapes, 4 for 1024^3, 1 for the other two). A kernel that fits two blocks
 * per SM would change the counts, and this test says so. */
START_TEST(splitk_counts) {
  int dev, sms, S;
  CUDA_OK(cudaGetDevice(&dev));
  CUDA_OK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
  static const struct {
    int M, N, K;
    unsigned tiles, allowed; /* 128 x 256 tiles (0: not whole, wide's fallback), bit S: K allows S */
  } want[] = {
      {128, 256, 256, 1, 0x6},   /* K / 2 = 128; K / 3 not whole; K / 4 = 64 */
      {128, 256, 384, 1, 0xe},   /* K / 3 = 128; K / 4 = 96 */
      {128, 256, 268, 1, 0x2},   /* K / 2 = 134, not a multiple of 8 */
      {128, 256, 272, 1, 0x6},   /* K / 2 = 136, a multiple of 8 (not of 16: pipelined's old rule said no) */
      {128, 256, 4096, 1, 0x16}, /* K / 3 not whole */
      {256, 256, 1024, 2, 0x16},  {512, 512, 512, 8, 0x16},      {1024, 1024, 1024, 32, 0x16},
      {1152, 2048, 256, 72, 0x6}, {2048, 2048, 2048, 128, 0x16}, {4096, 4096, 4096, 512, 0x16},
      {200, 204, 212, 0, 0x2},                           /* not whole tiles */
      {512, 384, 512, 0, 0x2},                           /* N not a multiple of 256 */
      {256, 512, 48, 4, 0x2},                            /* K / 2 = 24 */
      {0, 256, 256, 0, 0x2},      {128, 256, 0, 0, 0x2}, /* empty */
  };
  for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
    int expect = 1;
    for (int s = 4; s > 1 && expect == 1; s--)
      if ((want[i].allowed >> s & 1) && want[i].tiles * s <= (unsigned)sms) expect = s;
    CUDA_OK(matmul_splitk_splits(want[i].M, want[i].N, want[i].K, &S));
    printf("splitk M=%-4d N=%-4d K=%-4d on %d SMs: S=%d\n", want[i].M, want[i].N, want[i].K, sms, S);
    ck_assert_msg(S == expect, "matmul_splitk_splits(%d, %d, %d) on %d SMs = %d, want %d", want[i].M, want[i].N,
                  want[i].K, sms, S, expect);
  }
  ck_assert_int_eq(matmul_splitk_splits(-1, 128, 128, &S), cudaErrorInvalidValue);
  ck_assert_int_eq(matmul_splitk_splits(128, 128, 128, NULL), cudaErrorInvalidValue);
}
END_TEST

/* PERSISTENT_SHAPE takes both wgmma kernels' persistent loop: more than 2 tiles per block for some blocks, from
 * matmul_tf32_wgmma_grid (the launchers' own plan), so that a change of tile size or grid cannot silently leave
 * the loop untested. Elsewhere than compute capability 9.0 the wgmma kernels never run and there is nothing to
 * check. */
START_TEST(wgmma_persistent_grid) {
  int dev, major, minor, sms;
  CUDA_OK(cudaGetDevice(&dev));
  CUDA_OK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev));
  CUDA_OK(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, dev));
  CUDA_OK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
  if (major != 9 || minor != 0) {
    printf("sm_%d%d: no wgmma kernel runs on this device, no persistent grid to check\n", major, minor);
    return;
  }
  static const int shape[3] = {PERSISTENT_SHAPE};
  for (int rs = 0; rs < 2; rs++) {
    unsigned long long tiles;
    unsigned blocks;
    CUDA_OK(matmul_tf32_wgmma_grid(shape[0], shape[1], shape[2], rs, &tiles, &blocks));
    const char *name = rs ? "tf32_wgmma_rs" : "tf32_wgmma";
    printf("%s M=%d N=%d K=%d on %d SMs: %llu tiles, %u blocks\n", name, shape[0], shape[1], shape[2], sms, tiles,
           blocks);
    ck_assert_msg(blocks > 0, "%s does not take %d x %d x %d whole: its persistent loop is untested", name, shape[0],
                  shape[1], shape[2]);
    ck_assert_msg(tiles > 2ull * blocks, "%s: %llu tiles on %u blocks: no block walks more than 2 tiles", name, tiles,
                  blocks);
  }
  unsigned long long tiles;
  unsigned blocks;
  ck_assert_int_eq(matmul_tf32_wgmma_grid(-1, 256, 32, 0, &tiles, &blocks), cudaErrorInvalidValue);
  ck_assert_int_eq(matmul_tf32_wgmma_grid(128, 256, 32, 0, NULL, &blocks), cudaErrorInvalidValue);
  CUDA_OK(matmul_tf32_wgmma_grid(128, 256, 32, 0, &tiles, &blocks));
  ck_assert_msg(tiles == 1 && blocks == 1, "128 x 256 x 32: %llu tiles, %u blocks, want 1 and 1", tiles, blocks);
  CUDA_OK(matmul_tf32_wgmma_grid(128, 256, 32, 1, &tiles, &blocks)); /* M not a multiple of 256 */
  ck_assert_msg(tiles == 0 && blocks == 0, "rs 128 x 256 x 32: %llu tiles, %u blocks, want 0 (fallback)", tiles,
                blocks);
}
END_TEST

/* The TF32 conversion each of our tensor-core variants documents, seen in its result. On inputs all positive with
 * their 13 low fraction bits set, rounding to the nearest and truncating differ by 2^-11 to 2^-10 of every term,
 * all in one direction: about 16 times the 2 K u S_ij the check allows (asserted on every element), so a path
 * that took A or B another way than `expected` says fails. 256 x 256 x 256 is whole tiles of tf32_mma,
 * tf32_wgmma and tf32_wgmma_rs: their own paths (the wgmma kernels' on compute capability 9.0). */
START_TEST(tf32_rounding_as_documented) {
  problem p = make_problem_of(256, 256, 256, 1);
  const double rtol = 2.0 * p.K * 0x1p-24;
  double least = INFINITY;
  for (size_t i = 0; i < (size_t)p.M * p.N; i++) {
    double apart = fabs(p.want_rna[i] - p.want_trunc[i]) / (rtol * p.scale[i]);
    if (apart < least) least = apart;
  }
  printf("rounding probe: A rounded and A truncated differ by %.1f x the tolerance or more on every element\n", least);
  ck_assert_msg(least > 4, "the probe's two TF32 models differ by only %.2f x the tolerance: it cannot tell them apart",
                least);
  for (int v = 0; v < NVARIANTS; v++)
    if (matmul_variants[v].inputs != MATMUL_FP32 && !matmul_variants[v].reference) check_variant(v, &p, 0, 0, 0);
  free_problem(&p);
}
END_TEST

/* A problem on the device for one variant: A, B uploaded, C poisoned before each run. */
typedef struct {
  const matmul_variant *v;
  const problem *p;
  guarded_buf a, b, c;
  float *got; /* C as last downloaded */
} run_case;

static run_case run_case_new(const matmul_variant *v, const problem *p) {
  run_case c = {.v = v, .p = p};
  c.a = gbuf_alloc((size_t)p->M * p->K, 0);
  c.b = gbuf_alloc((size_t)p->K * p->N, 0);
  c.c = gbuf_alloc((size_t)p->M * p->N, 0);
  gbuf_upload(&c.a, p->a);
  gbuf_upload(&c.b, p->b);
  c.got = malloc((size_t)p->M * p->N * sizeof(float));
  ck_assert_ptr_nonnull(c.got);
  return c;
}

static void run_case_free(run_case *c) {
  gbuf_free(&c->a);
  gbuf_free(&c->b);
  gbuf_free(&c->c);
  free(c->got);
}

/* Poisons C (synchronously: before anything queued after it) and queues `times` runs of the variant on
 * `stream`, each writing all of C. */
static void run_case_launch(run_case *c, cudaStream_t stream, int times) {
  const problem *p = c->p;
  size_t nc = (size_t)p->M * p->N;
  fill_poison(c->got, nc);
  gbuf_upload(&c->c, c->got);
  CUDA_OK(cudaDeviceSynchronize()); /* the upload (legacy stream) has landed before `stream` writes C */
  for (int t = 0; t < times; t++) CUDA_OK(c->v->fn(c->a.ptr, c->b.ptr, c->c.ptr, p->M, p->N, p->K, stream));
}

/* Waits for `stream`, downloads C (guards checked) and checks every element against the fp64
 * reference, as check_variant does. */
static void run_case_check(run_case *c, cudaStream_t stream, const char *what) {
  const problem *p = c->p;
  size_t nc = (size_t)p->M * p->N;
  CUDA_OK(cudaStreamSynchronize(stream));
  check_inputs(c->v->name, p, &c->a, &c->b);
  gbuf_download(&c->c, c->got);
  double rtol;
  const char *model;
  const double *want = expected(c->v, p, 1, &rtol, &model);
  compare_report r = compare_f32(c->got, want, p->scale, nc, (tolerance){.rel = rtol, .rel_to_scale = 1});
  char line[256];
  format_report(&r, line, sizeof line);
  printf("%s M=%-4d N=%-4d K=%-4d %s: %s %s\n", c->v->name, p->M, p->N, p->K, what, line, r.bad ? "FAIL" : "ok");
  fflush(stdout);
  ck_assert_msg(r.bad == 0, "%s M=%d N=%d K=%d %s: %s", c->v->name, p->M, p->N, p->K, what, line);
}

static void assert_same_bits(const float *x, const float *y, size_t n, const char *what) {
  for (size_t i = 0; i < n; i++)
    ck_assert_msg(memcmp(&x[i], &y[i], sizeof(float)) == 0, "%s: element %zu differs, %a against %a", what, i,
                  (double)x[i], (double)y[i]);
}

/* splitk sums its S partial products in one fixed order (a second kernel): C has the same bits on
 * every run of one shape, also when runs are queued back to back (each reuses the stream's workspace)
 * and after a larger product has grown that workspace in between. */
START_TEST(splitk_deterministic) {
  cudaStream_t s;
  size_t sms;
  gpu_test_stream("matmul_test", &s, &sms);
  problem small = make_problem(256, 256, 1024), large = make_problem(512, 512, 512);
  int S_small, S_large;
  CUDA_OK(matmul_splitk_splits(small.M, small.N, small.K, &S_small));
  CUDA_OK(matmul_splitk_splits(large.M, large.N, large.K, &S_large));
  ck_assert_msg(S_small > 1, "256 x 256 x 1024 is not split on %zu SMs (S = %d): nothing to test", sms, S_small);
  /* The larger product needs more workspace: S partial C's of M x N each. */
  ck_assert_msg(512 * 512 * S_large > 256 * 256 * S_small,
                "S %d and %d: the second product does not grow the workspace", S_small, S_large);
  size_t nc = (size_t)small.M * small.N;
  float *first = malloc(nc * sizeof(float));
  ck_assert_ptr_nonnull(first);
  run_case cs = run_case_new(splitk_variant(), &small), cl = run_case_new(splitk_variant(), &large);

  run_case_launch(&cs, s, 1);
  run_case_check(&cs, s, "first run");
  memcpy(first, cs.got, nc * sizeof(float));

  run_case_launch(&cs, s, 3);
  run_case_check(&cs, s, "3 runs back to back");
  assert_same_bits(first, cs.got, nc, "3 runs back to back against the first");

  run_case_launch(&cl, s, 2); /* grows the workspace: the stream is drained, the memory made again */
  run_case_check(&cl, s, "larger product (workspace grown)");
  run_case_launch(&cs, s, 1);
  run_case_check(&cs, s, "after the larger product");
  assert_same_bits(first, cs.got, nc, "after the larger product against the first");

  run_case_free(&cs);
  run_case_free(&cl);
  free(first);
  free_problem(&small);
  free_problem(&large);
  CUDA_OK(cudaStreamDestroy(s));
}
END_TEST

/* v on two streams of one context at once, M1 x N1 x K1 on one and M2 x N2 x K2 on the other, with no
 * synchronisation between them: each result is right and, but for a library reference, has the same bits as
 * the variant alone. */
static void two_streams(const matmul_variant *v, int M1, int N1, int K1, int M2, int N2, int K2) {
  cudaStream_t s1, s2;
  size_t sms;
  gpu_test_stream("matmul_test", &s1, &sms);
  gpu_test_stream("matmul_test", &s2, &sms);
  problem p1 = make_problem(M1, N1, K1), p2 = make_problem(M2, N2, K2);
  run_case c1 = run_case_new(v, &p1), c2 = run_case_new(v, &p2);
  size_t n1 = (size_t)p1.M * p1.N, n2 = (size_t)p2.M * p2.N;
  float *alone1 = malloc(n1 * sizeof(float)), *alone2 = malloc(n2 * sizeof(float));
  ck_assert(alone1 && alone2);
  run_case_launch(&c1, s1, 1);
  run_case_check(&c1, s1, "alone on stream 1");
  memcpy(alone1, c1.got, n1 * sizeof(float));
  run_case_launch(&c2, s2, 1);
  run_case_check(&c2, s2, "alone on stream 2");
  memcpy(alone2, c2.got, n2 * sizeof(float));

  fill_poison(c1.got, n1);
  gbuf_upload(&c1.c, c1.got);
  fill_poison(c2.got, n2);
  gbuf_upload(&c2.c, c2.got);
  CUDA_OK(cudaDeviceSynchronize());
  for (int t = 0; t < 4; t++) {
    CUDA_OK(v->fn(c1.a.ptr, c1.b.ptr, c1.c.ptr, p1.M, p1.N, p1.K, s1));
    CUDA_OK(v->fn(c2.a.ptr, c2.b.ptr, c2.c.ptr, p2.M, p2.N, p2.K, s2));
  }
  run_case_check(&c1, s1, "alongside stream 2");
  run_case_check(&c2, s2, "alongside stream 1");
  /* cuBLAS (the library references) promises the same bits only with one stream active per handle, or a
   * workspace of each stream's own (cuBLAS docs, "Results reproducibility"); here both streams share the
   * context's handle and its workspace, so a reference is held to its tolerance only. Ours are held to
   * the bits. */
  if (v->reference) {
    printf("%s: library reference, bits alongside another stream not compared\n", v->name);
  } else {
    assert_same_bits(alone1, c1.got, n1, "stream 1 alongside stream 2 against alone");
    assert_same_bits(alone2, c2.got, n2, "stream 2 alongside stream 1 against alone");
  }

  run_case_free(&c1);
  run_case_free(&c2);
  free(alone1);
  free(alone2);
  free_problem(&p1);
  free_problem(&p2);
  CUDA_OK(cudaStreamDestroy(s1));
  CUDA_OK(cudaStreamDestroy(s2));
}

/* Every variant on two streams at once. splitk and tf32_wgmma keep a workspace per stream (partial C's,
 * B^T): two streams sharing one would show here. The shapes take every variant's own path (whole tiles of
 * all of them; splitk splits both on 132 SMs: S = 4 and 2). */
START_TEST(two_streams_same_bits) { two_streams(&matmul_variants[_i], 512, 512, 1024, 256, 256, 256); }
END_TEST

/* The wgmma kernels' persistent loop (PERSISTENT_SHAPE) on one stream alongside 512 x 512 x 1024 (8 tiles of
 * either kernel) on another. */
static const char *const kPersistentVariants[] = {"tf32_wgmma", "tf32_wgmma_rs"};

START_TEST(two_streams_persistent) {
  const matmul_variant *v = NULL;
  for (size_t i = 0; i < matmul_nvariants; i++)
    if (strcmp(matmul_variants[i].name, kPersistentVariants[_i]) == 0) v = &matmul_variants[i];
  ck_assert_msg(v != NULL, "no %s in matmul_variants", kPersistentVariants[_i]);
  two_streams(v, PERSISTENT_SHAPE, 512, 512, 1024);
}
END_TEST

int main(void) {
  require_gpu("matmul_test");
  test_seed();
  Suite *s = suite_create("matmul");
  TCase *shapes = tcase_create("shapes");
  tcase_add_loop_test(shapes, all_variants_one_shape, 0, NSHAPES);
  suite_add_tcase(s, shapes);
  TCase *align = tcase_create("misaligned");
  tcase_add_loop_test(align, misaligned_pointers, 0, NMISALIGNED);
  suite_add_tcase(s, align);
  TCase *rounding = tcase_create("tf32_rounding");
  tcase_add_test(rounding, tf32_rounding_as_documented);
  suite_add_tcase(s, rounding);
  TCase *args = tcase_create("arguments");
  tcase_add_test(args, rejects_bad_arguments);
  suite_add_tcase(s, args);
  TCase *splitk = tcase_create("splitk");
  tcase_add_test(splitk, splitk_counts);
  tcase_add_test(splitk, splitk_deterministic);
  suite_add_tcase(s, splitk);
  TCase *persistent = tcase_create("persistent");
  tcase_add_test(persistent, wgmma_persistent_grid);
  suite_add_tcase(s, persistent);
  TCase *streams = tcase_create("two_streams");
  tcase_add_loop_test(streams, two_streams_same_bits, 0, NVARIANTS);
  tcase_add_loop_test(streams, two_streams_persistent, 0,
                      (int)(sizeof kPersistentVariants / sizeof kPersistentVariants[0]));
  suite_add_tcase(s, streams);
  return run_gpu_suite(s);
}
