/* Benchmarks of negate with the suite's runner: 8 bytes moved per element. */
#include <stdio.h>
#include <stdlib.h>

#include "kernels/negate/negate_variants.h"
#include "perf/runner/bench.h"
#include "perf/runner/bench_util.h"
#include "perf/runner/verify.h"

static const long long kSizes[] = {1ll << 20, 1ll << 24, 1ll << 28};

typedef struct {
  const negate_variant *v;
  size_t n;
  float *x, *y, *hx;
} negate_state;

static void negate_teardown(void *p) {
  negate_state *s = p;
  cudaFree(s->x);
  cudaFree(s->y);
  free(s->hx);
  free(s);
}

static int negate_setup(const bench_case *c, uint64_t seed, void **out, char *err, size_t errlen) {
  negate_state *s = calloc(1, sizeof *s);
  if (!s) return snprintf(err, errlen, "out of host memory"), -1;
  s->v = c->arg;
  s->n = (size_t)c->params[0].value;
  test_rng rng;
  rng_seed(&rng, seed);
  if (bench_random_device(s->n, -1.0f, 1.0f, &rng, &s->x, &s->hx, err, errlen) ||
      bench_poisoned_device(s->n, &s->y, err, errlen)) {
    negate_teardown(s);
    return -1;
  }
  *out = s;
  return 0;
}

static cudaError_t negate_run(void *p, cudaStream_t stream) {
  negate_state *s = p;
  return s->v->fn(s->x, s->y, s->n, stream);
}

static void negate_ref(const void *p, size_t begin, size_t count, double *want, double *scale) {
  const negate_state *s = p;
  (void)scale;
  for (size_t i = 0; i < count; i++) want[i] = -(double)s->hx[begin + i];
}

static int negate_verify(void *p, char *err, size_t errlen) {
  negate_state *s = p;
  float *got;
  if (bench_download(s->y, s->n, &got, err, errlen)) return -1;
  int rc = verify_f32(s->v->name, got, s->n, negate_ref, s, TOL_EXACT, err, errlen); /* negation is exact */
  free(got);
  return rc;
}

/* The next variant at this size keeps x and gets y poisoned again: one set-up per size. */
static int negate_reuse(void *p, const bench_case *c, char *err, size_t errlen) {
  negate_state *s = p;
  s->v = c->arg;
  return bench_poison(s->y, s->n * sizeof(float), err, errlen);
}

static const bench_ops kNegateOps = {negate_setup, negate_run, negate_verify, negate_teardown, negate_reuse};

/* Reads and writes N floats. */
static void negate_cost(bench_case *c) { c->bytes = 8.0 * c->params[0].value; }

int main(int argc, char **argv) {
  bench_register_grid(&(bench_grid){.family = "negate",
                                    .ops = &kNegateOps,
                                    BENCH_VARIANTS(negate_variants, negate_nvariants),
                                    .param_names = {"N"},
                                    .sizes = kSizes,
                                    .nsizes = sizeof kSizes / sizeof *kSizes,
                                    .cost = negate_cost});
  return bench_main(argc, argv);
}
