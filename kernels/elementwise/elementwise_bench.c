/* Benchmarks of kernels/elementwise: every variant at every size. The variants
 * are the tables of kernels/elementwise/elementwise_variants.c (one per
 * signature); a new signature needs a new ops table here. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "kernels/elementwise/elementwise.h"
#include "kernels/elementwise/elementwise_variants.h"
#include "perf/runner/bench.h"
#include "perf/runner/bench_util.h"
#include "perf/runner/verify.h"

/* 1 Mi floats (4 MiB per array, inside L2: the flush matters), 16 Mi (64 MiB)
 * and 256 Mi (1 GiB per array, far beyond the 50 MB L2). */
static const long long kSizes[] = {1ll << 20, 1ll << 24, 1ll << 28};

/* ---------- c = a + b ---------- */

typedef struct {
  const ew_add_variant *v;
  size_t n;
  float *a, *b, *c; /* device */
  float *ha, *hb;   /* host copies of the inputs */
} add_state;

static void add_teardown(void *p) {
  add_state *s = p;
  cudaFree(s->a);
  cudaFree(s->b);
  cudaFree(s->c);
  free(s->ha);
  free(s->hb);
  free(s);
}

static int add_setup(const bench_case *c, uint64_t seed, void **out, char *err, size_t errlen) {
  add_state *s = calloc(1, sizeof *s);
  if (!s) return snprintf(err, errlen, "out of host memory"), -1;
  s->v = c->arg;
  s->n = (size_t)c->params[0].value;
  test_rng rng;
  rng_seed(&rng, seed);
  if (bench_random_device(s->n, -1.0f, 1.0f, &rng, &s->a, &s->ha, err, errlen) ||
      bench_random_device(s->n, -1.0f, 1.0f, &rng, &s->b, &s->hb, err, errlen) ||
      bench_poisoned_device(s->n, &s->c, err, errlen)) {
    add_teardown(s);
    return -1;
  }
  *out = s;
  return 0;
}

static cudaError_t add_run(void *p, cudaStream_t stream) {
  add_state *s = p;
  return s->v->fn(s->a, s->b, s->c, s->n, stream);
}

static void add_ref(const void *p, size_t begin, size_t count, double *want, double *scale) {
  const add_state *s = p;
  (void)scale;
  for (size_t i = 0; i < count; i++) want[i] = (double)s->ha[begin + i] + (double)s->hb[begin + i];
}

static int add_verify(void *p, char *err, size_t errlen) {
  add_state *s = p;
  float *got;
  if (bench_download(s->c, s->n, &got, err, errlen)) return -1;
  /* One correctly rounded float add: relative error <= 2^-24. */
  int rc = verify_f32(s->v->name, got, s->n, add_ref, s, (tolerance){.rel = EW_ADD_RTOL}, err, errlen);
  free(got);
  return rc;
}

static int add_reuse(void *p, const bench_case *c, char *err, size_t errlen) {
  add_state *s = p;
  s->v = c->arg;
  return bench_poison(s->c, s->n * sizeof(float), err, errlen);
}

static const bench_ops kAddOps = {add_setup, add_run, add_verify, add_teardown, add_reuse};

/* ---------- y = alpha * x + y ---------- */

typedef struct {
  const ew_saxpy_variant *v;
  size_t n;
  float alpha;
  float *x, *y;
  float *hx, *hy;
} saxpy_state;

static void saxpy_teardown(void *p) {
  saxpy_state *s = p;
  cudaFree(s->x);
  cudaFree(s->y);
  free(s->hx);
  free(s->hy);
  free(s);
}

static int saxpy_setup(const bench_case *c, uint64_t seed, void **out, char *err, size_t errlen) {
  saxpy_state *s = calloc(1, sizeof *s);
  if (!s) return snprintf(err, errlen, "out of host memory"), -1;
  s->v = c->arg;
  s->n = (size_t)c->params[0].value;
  test_rng rng;
  rng_seed(&rng, seed);
  /* |alpha| < 1e-3: y drifts slowly over thousands of timed runs and stays finite. */
  s->alpha = (float)(1e-3 * (2 * rng_uniform(&rng) - 1));
  if (s->alpha == 0.0f) s->alpha = 5e-4f;
  if (bench_random_device(s->n, -1.0f, 1.0f, &rng, &s->x, &s->hx, err, errlen) ||
      bench_random_device(s->n, -1.0f, 1.0f, &rng, &s->y, &s->hy, err, errlen)) {
    saxpy_teardown(s);
    return -1;
  }
  *out = s;
  return 0;
}

static cudaError_t saxpy_run(void *p, cudaStream_t stream) {
  saxpy_state *s = p;
  return s->v->fn(s->alpha, s->x, s->y, s->n, stream);
}

static void saxpy_ref(const void *p, size_t begin, size_t count, double *want, double *scale) {
  const saxpy_state *s = p;
  for (size_t i = 0; i < count; i++) {
    double ax = (double)s->alpha * s->hx[begin + i], y = s->hy[begin + i];
    want[i] = ax + y;
    scale[i] = fabs(ax) + fabs(y);
  }
}

static int saxpy_verify(void *p, char *err, size_t errlen) {
  saxpy_state *s = p;
  float *got;
  if (bench_download(s->y, s->n, &got, err, errlen)) return -1;
  /* The product may round before the add (or fuse): error <= 2^-23 (|alpha x| + |y|). */
  int rc = verify_f32(s->v->name, got, s->n, saxpy_ref, s, (tolerance){.rel = EW_SAXPY_RTOL, .rel_to_scale = 1}, err,
                      errlen);
  free(got);
  return rc;
}

/* Runs overwrite y: the next variant starts again from the y the fp64 reference uses. */
static int saxpy_reuse(void *p, const bench_case *c, char *err, size_t errlen) {
  saxpy_state *s = p;
  s->v = c->arg;
  return bench_upload(s->y, s->hy, s->n, err, errlen);
}

static const bench_ops kSaxpyOps = {saxpy_setup, saxpy_run, saxpy_verify, saxpy_teardown, saxpy_reuse};

/* Reads a and b, writes c: 12 bytes and one add per element. */
static void add_cost(bench_case *c) {
  c->bytes = 3 * 4 * (double)c->params[0].value;
  c->flops = (double)c->params[0].value;
}

/* Reads x and y, writes y: 12 bytes and a multiply-add per element. */
static void saxpy_cost(bench_case *c) {
  c->bytes = 3 * 4 * (double)c->params[0].value;
  c->flops = 2 * (double)c->params[0].value;
}

int main(int argc, char **argv) {
  const size_t nsizes = sizeof kSizes / sizeof *kSizes;
  bench_register_grid(&(bench_grid){.family = "elementwise",
                                    .ops = &kAddOps,
                                    BENCH_VARIANTS(ew_add_variants, ew_add_nvariants),
                                    .param_names = {"N"},
                                    .sizes = kSizes,
                                    .nsizes = nsizes,
                                    .cost = add_cost});
  bench_register_grid(&(bench_grid){.family = "elementwise",
                                    .ops = &kSaxpyOps,
                                    BENCH_VARIANTS(ew_saxpy_variants, ew_saxpy_nvariants),
                                    .reference_at = offsetof(ew_saxpy_variant, reference),
                                    .param_names = {"N"},
                                    .sizes = kSizes,
                                    .nsizes = nsizes,
                                    .cost = saxpy_cost});
  return bench_main(argc, argv);
}
