/* Benchmarks of kernels/copy: the float4 copy kernel and cudaMemcpy
 * device-to-device (a library reference: the driver's copy, the practical bandwidth
 * limit every memory-bound benchmark is compared with). */
#include <stdio.h>
#include <stdlib.h>

#include "kernels/copy/copy.h"
#include "kernels/copy/copy_variants.h"
#include "perf/runner/bench.h"
#include "perf/runner/bench_util.h"
#include "perf/runner/verify.h"

static const long long kSizes[] = {1ll << 20, 1ll << 24, 1ll << 28};

typedef struct {
  const copy_variant *v;
  size_t n;
  float *src, *dst; /* device */
  float *hsrc;      /* host copy of the source */
} copy_state;

static void copy_teardown(void *p) {
  copy_state *s = p;
  cudaFree(s->src);
  cudaFree(s->dst);
  free(s->hsrc);
  free(s);
}

static int copy_setup(const bench_case *c, uint64_t seed, void **out, char *err, size_t errlen) {
  copy_state *s = calloc(1, sizeof *s);
  if (!s) return snprintf(err, errlen, "out of host memory"), -1;
  s->v = c->arg;
  s->n = (size_t)c->params[0].value;
  test_rng rng;
  rng_seed(&rng, seed);
  if (bench_random_device(s->n, -1.0f, 1.0f, &rng, &s->src, &s->hsrc, err, errlen) ||
      bench_poisoned_device(s->n, &s->dst, err, errlen)) {
    copy_teardown(s);
    return -1;
  }
  *out = s;
  return 0;
}

static cudaError_t copy_run(void *p, cudaStream_t stream) {
  copy_state *s = p;
  return s->v->fn(s->src, s->dst, s->n, stream);
}

static void copy_ref(const void *p, size_t begin, size_t count, double *want, double *scale) {
  const copy_state *s = p;
  (void)scale;
  for (size_t i = 0; i < count; i++) want[i] = s->hsrc[begin + i];
}

static int copy_verify(void *p, char *err, size_t errlen) {
  copy_state *s = p;
  float *got;
  if (bench_download(s->dst, s->n, &got, err, errlen)) return -1;
  /* A copy does no arithmetic: exact. */
  int rc = verify_f32(s->v->name, got, s->n, copy_ref, s, TOL_EXACT, err, errlen);
  free(got);
  return rc;
}

static int copy_reuse(void *p, const bench_case *c, char *err, size_t errlen) {
  copy_state *s = p;
  s->v = c->arg;
  return bench_poison(s->dst, s->n * sizeof(float), err, errlen);
}

static const bench_ops kCopyOps = {copy_setup, copy_run, copy_verify, copy_teardown, copy_reuse};

/* Reads and writes N floats. */
static void copy_cost(bench_case *c) { c->bytes = 2 * 4 * (double)c->params[0].value; }

int main(int argc, char **argv) {
  bench_register_grid(&(bench_grid){.family = "copy",
                                    .ops = &kCopyOps,
                                    BENCH_VARIANTS(copy_variants, copy_nvariants),
                                    .reference_at = offsetof(copy_variant, reference),
                                    .param_names = {"N"},
                                    .sizes = kSizes,
                                    .nsizes = sizeof kSizes / sizeof *kSizes,
                                    .cost = copy_cost});
  return bench_main(argc, argv);
}
