/* Benchmarks of kernels/scale: y = a * x, 8 bytes moved per element. */
#include <stdio.h>
#include <stdlib.h>

#include "kernels/scale/scale.h"
#include "kernels/scale/scale_variants.h"
#include "perf/runner/bench.h"
#include "perf/runner/bench_util.h"
#include "perf/runner/verify.h"

static const long long kSizes[] = {1ll << 20, 1ll << 24, 1ll << 28};
static const float kFactor = 1.7f;

typedef struct {
  const scale_variant *v;
  size_t n;
  float *x, *y; /* device */
  float *hx;    /* host copy of x */
} scale_state;

static void scale_teardown(void *p) {
  scale_state *s = p;
  cudaFree(s->x);
  cudaFree(s->y);
  free(s->hx);
  free(s);
}

static int scale_setup(const bench_case *c, uint64_t seed, void **out, char *err, size_t errlen) {
  scale_state *s = calloc(1, sizeof *s);
  if (!s) return snprintf(err, errlen, "out of host memory"), -1;
  s->v = c->arg;
  s->n = (size_t)c->params[0].value;
  test_rng rng;
  rng_seed(&rng, seed);
  if (bench_random_device(s->n, -1.0f, 1.0f, &rng, &s->x, &s->hx, err, errlen) ||
      bench_poisoned_device(s->n, &s->y, err, errlen)) {
    scale_teardown(s);
    return -1;
  }
  *out = s;
  return 0;
}

static cudaError_t scale_run(void *p, cudaStream_t stream) {
  scale_state *s = p;
  return s->v->fn(kFactor, s->x, s->y, s->n, stream);
}

static void scale_ref(const void *p, size_t begin, size_t count, double *want, double *scale) {
  const scale_state *s = p;
  (void)scale;
  for (size_t i = 0; i < count; i++) want[i] = (double)kFactor * s->hx[begin + i];
}

static int scale_verify(void *p, char *err, size_t errlen) {
  scale_state *s = p;
  float *got;
  if (bench_download(s->y, s->n, &got, err, errlen)) return -1;
  /* One correctly rounded product per element (scale_variants.h). */
  int rc = verify_f32(s->v->name, got, s->n, scale_ref, s, (tolerance){.rel = FLOAT_UNIT_ROUNDOFF}, err, errlen);
  free(got);
  return rc;
}

static int scale_reuse(void *p, const bench_case *c, char *err, size_t errlen) {
  scale_state *s = p;
  s->v = c->arg;
  return bench_poison(s->y, s->n * sizeof(float), err, errlen);
}

static const bench_ops kScaleOps = {scale_setup, scale_run, scale_verify, scale_teardown, scale_reuse};

/* Reads and writes N floats. */
static void scale_cost(bench_case *c) { c->bytes = 2 * 4 * (double)c->params[0].value; }

int main(int argc, char **argv) {
  bench_register_grid(&(bench_grid){.family = "scale",
                                    .ops = &kScaleOps,
                                    BENCH_VARIANTS(scale_variants, scale_nvariants),
                                    .param_names = {"N"},
                                    .sizes = kSizes,
                                    .nsizes = sizeof kSizes / sizeof *kSizes,
                                    .cost = scale_cost});
  return bench_main(argc, argv);
}
