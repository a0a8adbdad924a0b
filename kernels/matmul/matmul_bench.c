/* Benchmarks of kernels/matmul: the fp32 ladder (naive, tiled16, tiled32,
 * regblock, warptile, pipelined, wide, splitk), the TF32 tensor-core ladder (tf32_wmma,
 * tf32_mma, tf32_wgmma, tf32_wgmma_rs: "tf32" in the name, NOT an fp32 result) and the
 * library references, cuBLAS sgemm in pedantic fp32 and with TF32 tensor cores, every
 * variant at every size. The figure that matters is FLOP/s (flops = 2 M N K). splitk and
 * tf32_wgmma allocate their workspace on their first call in each CUDA context and stream
 * (the self-check run, or the warm-up in a new context: never a timed sample); at 2048^3
 * and 4096^3 on 132 SMs splitk is wide (S = 1).
 *
 * Self-check, per element of C against the exact (fp64) product of the fp32
 * inputs: within matmul_rtol(v, K) * S_ij, S_ij = sum_k |a_ik| |b_kj| (the
 * bound in kernels/matmul/matmul_variants.h, shared with the Check test).
 * The bound over a typical term |a b| ~ S / K is 2 K^2 u: 0.5 at K = 2048, 2
 * at K = 4096, where one lost or repeated term no longer shows (that is the
 * Check test's job, K <= 1024); wrong indexing, tiles or k-steps still show
 * (errors of ~sqrt(K) terms).
 *
 * The fp64 reference costs M N K multiply-adds: all of C is checked up to
 * kFullCheckMacs (1024^3: 1 to 3 s on one core, split over threads, computed
 * once per size for all its variants); beyond it (2048^3 would be 8x
 * that, 4096^3 64x) every element must be finite (catches unwritten poison) and
 * kSamples random elements plus the four corners are checked against the same
 * bound, each an fp64 dot product of length K. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/matmul/matmul.h"
#include "kernels/matmul/matmul_variants.h"
#include "perf/runner/bench.h"
#include "perf/runner/bench_util.h"
#include "perf/runner/verify.h"

/* M = N = K: 12 MiB of operands (inside L2: the flush matters), 48 MiB and
 * 192 MiB (far beyond the 50 MB L2). */
static const long long kShapes[][3] = {{1024, 1024, 1024}, {2048, 2048, 2048}, {4096, 4096, 4096}};

static const double kFullCheckMacs = 1024.0 * 1024.0 * 1024.0;
enum { kSamples = 4096 };

typedef struct {
  const matmul_variant *v;
  int M, N, K;
  float *a, *b, *c;     /* device */
  float *ha, *hb;       /* host copies of A and B */
  test_rng rng;         /* picks the sampled elements */
  double *want, *scale; /* the fp64 reference of all of C and its scale, once computed (full check) */
} matmul_state;

static void matmul_teardown(void *p) {
  matmul_state *s = p;
  cudaFree(s->a);
  cudaFree(s->b);
  cudaFree(s->c);
  free(s->ha);
  free(s->hb);
  free(s->want);
  free(s->scale);
  free(s);
}

static int matmul_setup(const bench_case *c, uint64_t seed, void **out, char *err, size_t errlen) {
  matmul_state *s = calloc(1, sizeof *s);
  if (!s) return snprintf(err, errlen, "out of host memory"), -1;
  s->v = c->arg;
  s->M = (int)c->params[0].value;
  s->N = (int)c->params[1].value;
  s->K = (int)c->params[2].value;
  rng_seed(&s->rng, seed);
  if (bench_random_device((size_t)s->M * s->K, -1.0f, 1.0f, &s->rng, &s->a, &s->ha, err, errlen) ||
      bench_random_device((size_t)s->K * s->N, -1.0f, 1.0f, &s->rng, &s->b, &s->hb, err, errlen) ||
      bench_poisoned_device((size_t)s->M * s->N, &s->c, err, errlen)) {
    matmul_teardown(s);
    return -1;
  }
  *out = s;
  return 0;
}

static cudaError_t matmul_run(void *p, cudaStream_t stream) {
  matmul_state *s = p;
  return s->v->fn(s->a, s->b, s->c, s->M, s->N, s->K, stream);
}

/* The fp64 reference and scale S for C elements begin.. (row-major), row by row in
 * i-k-j order (unit stride in the inner loop). */
static void matmul_ref(const void *p, size_t begin, size_t count, double *want, double *scale) {
  const matmul_state *s = p;
  size_t N = (size_t)s->N, K = (size_t)s->K, end = begin + count;
  for (size_t i = begin / N; i * N < end; i++) {
    size_t j0 = (i * N > begin ? i * N : begin) - i * N, j1 = ((i + 1) * N < end ? (i + 1) * N : end) - i * N;
    double *w = want + (i * N + j0 - begin), *sc = scale + (i * N + j0 - begin);
    for (size_t j = 0; j < j1 - j0; j++) w[j] = sc[j] = 0.0;
    for (size_t k = 0; k < K; k++) {
      double a = s->ha[i * K + k], aa = fabs(a);
      const float *brow = s->hb + k * N + j0;
      for (size_t j = 0; j < j1 - j0; j++) {
        w[j] += a * brow[j];
        sc[j] += aa * fabs((double)brow[j]);
      }
    }
  }
}

/* The fp64 reference of all of C, computed on several threads the first time a variant at this size is
 * checked and kept for the others (reuse): M N K multiply-adds each time was most of the self-check. */
enum { REF_CHUNK = 1 << 16 };

static void ref_chunk(void *arg, size_t c, size_t thread) {
  matmul_state *s = arg;
  size_t nc = (size_t)s->M * s->N, begin = c * REF_CHUNK, count = nc - begin < REF_CHUNK ? nc - begin : REF_CHUNK;
  (void)thread;
  matmul_ref(s, begin, count, s->want + begin, s->scale + begin);
}

static void cached_ref(const void *p, size_t begin, size_t count, double *want, double *scale) {
  const matmul_state *s = p;
  memcpy(want, s->want + begin, count * sizeof *want);
  memcpy(scale, s->scale + begin, count * sizeof *scale);
}

static int full_reference(matmul_state *s, char *err, size_t errlen) {
  if (s->want) return 0;
  size_t nc = (size_t)s->M * s->N;
  s->want = malloc(nc * sizeof *s->want);
  s->scale = malloc(nc * sizeof *s->scale);
  if (!s->want || !s->scale) {
    free(s->want), free(s->scale);
    s->want = s->scale = NULL;
    return snprintf(err, errlen, "%s: out of host memory for the reference", s->v->name), -1;
  }
  for_each_chunk((nc + REF_CHUNK - 1) / REF_CHUNK, ref_chunk, s);
  return 0;
}

/* Checks kSamples random elements and the four corners of C (got, M x N). */
static int verify_sampled(matmul_state *s, const float *got, double rtol, char *err, size_t errlen) {
  size_t M = (size_t)s->M, N = (size_t)s->N, K = (size_t)s->K, ns = kSamples + 4;
  size_t *idx = malloc(ns * sizeof *idx);
  float *gs = malloc(ns * sizeof *gs);
  double *want = malloc(ns * sizeof *want), *scale = malloc(ns * sizeof *scale);
  if (!idx || !gs || !want || !scale) {
    free(idx), free(gs), free(want), free(scale);
    return snprintf(err, errlen, "%s: out of host memory", s->v->name), -1;
  }
  idx[0] = 0;
  idx[1] = N - 1;
  idx[2] = (M - 1) * N;
  idx[3] = M * N - 1;
  for (size_t t = 4; t < ns; t++) idx[t] = (size_t)(rng_uniform(&s->rng) * (double)(M * N));
  for (size_t t = 0; t < ns; t++) {
    size_t i = idx[t] / N, j = idx[t] % N;
    double w = 0.0, sc = 0.0;
    for (size_t k = 0; k < K; k++) {
      double prod = (double)s->ha[i * K + k] * s->hb[k * N + j];
      w += prod;
      sc += fabs(prod);
    }
    gs[t] = got[idx[t]];
    want[t] = w;
    scale[t] = sc;
  }
  compare_report r = compare_f32(gs, want, scale, ns, (tolerance){.rel = rtol, .rel_to_scale = 1});
  int rc = 0;
  if (r.bad) {
    char line[256];
    format_report(&r, line, sizeof line);
    snprintf(err, errlen, "%s (sampled, bad sample at C[%zu][%zu]): %s", s->v->name, idx[r.first_bad] / N,
             idx[r.first_bad] % N, line);
    rc = -1;
  }
  free(idx), free(gs), free(want), free(scale);
  return rc;
}

static int matmul_verify(void *p, char *err, size_t errlen) {
  matmul_state *s = p;
  size_t nc = (size_t)s->M * s->N;
  double rtol = matmul_rtol(s->v, s->K);
  float *got;
  if (bench_download(s->c, nc, &got, err, errlen)) return -1;
  int rc = 0;
  if ((double)s->M * s->N * s->K <= kFullCheckMacs) {
    rc = full_reference(s, err, errlen);
    if (rc == 0)
      rc = verify_f32(s->v->name, got, nc, cached_ref, s, (tolerance){.rel = rtol, .rel_to_scale = 1}, err, errlen);
  } else {
    size_t e = 0;
    while (e < nc && isfinite(got[e])) e++;
    if (e < nc) {
      snprintf(err, errlen, "%s: C[%zu][%zu] = %g%s", s->v->name, e / s->N, e % s->N, got[e],
               is_poison(got[e]) ? " (poison: never written)" : "");
      rc = -1;
    } else {
      rc = verify_sampled(s, got, rtol, err, errlen);
    }
  }
  free(got);
  return rc;
}

static int matmul_reuse(void *p, const bench_case *c, char *err, size_t errlen) {
  matmul_state *s = p;
  s->v = c->arg;
  return bench_poison(s->c, (size_t)s->M * s->N * sizeof(float), err, errlen);
}

static const bench_ops kMatmulOps = {matmul_setup, matmul_run, matmul_verify, matmul_teardown, matmul_reuse};

/* Bytes: the fewest the operation must move, A and B read once and C written once (tile re-reads are
 * the variant's cost); FLOP/s is the figure that matters here. */
static void matmul_cost(bench_case *c) {
  double M = (double)c->params[0].value, N = (double)c->params[1].value, K = (double)c->params[2].value;
  c->bytes = 4 * (M * K + K * N + M * N);
  c->flops = 2 * M * N * K;
}

int main(int argc, char **argv) {
  bench_register_grid(&(bench_grid){.family = "matmul",
                                    .ops = &kMatmulOps,
                                    BENCH_VARIANTS(matmul_variants, matmul_nvariants),
                                    .reference_at = offsetof(matmul_variant, reference),
                                    .param_names = {"M", "N", "K"},
                                    .sizes = &kShapes[0][0],
                                    .nsizes = sizeof kShapes / sizeof *kShapes,
                                    .cost = matmul_cost});
  return bench_main(argc, argv);
}
