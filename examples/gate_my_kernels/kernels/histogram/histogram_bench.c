/* Benchmarks of histogram with the suite's runner: N bytes read per run (the 1 KiB of counts
 * aside), every count checked exactly against a CPU histogram. */
#include <stdio.h>
#include <stdlib.h>

#include "kernels/histogram/histogram_variants.h"
#include "perf/runner/bench.h"
#include "perf/runner/bench_util.h"
#include "perf/runner/verify.h"

static const long long kSizes[] = {1ll << 20, 1ll << 24, 1ll << 28};

typedef struct {
  const histogram_variant *v;
  size_t n;
  void *x, *counts;            /* device: n uint8, HISTOGRAM_BINS int32 */
  double want[HISTOGRAM_BINS]; /* the CPU histogram of x */
} histogram_state;

static void histogram_teardown(void *p) {
  histogram_state *s = p;
  cudaFree(s->x);
  cudaFree(s->counts);
  free(s);
}

static int histogram_setup(const bench_case *c, uint64_t seed, void **out, char *err, size_t errlen) {
  histogram_state *s = calloc(1, sizeof *s);
  if (!s) return snprintf(err, errlen, "out of host memory"), -1;
  s->v = c->arg;
  s->n = (size_t)c->params[0].value;
  test_rng rng;
  rng_seed(&rng, seed);
  void *hx = NULL;
  if (bench_random_elems(ELEM_U8, s->n, 0, 255, &rng, &s->x, &hx, err, errlen) ||
      bench_poisoned_elems(ELEM_I32, HISTOGRAM_BINS, &s->counts, err, errlen)) {
    free(hx);
    histogram_teardown(s);
    return -1;
  }
  /* The CPU reference is 256 numbers: counted now, so the host copy (up to 256 MiB) goes. */
  const uint8_t *bytes = hx;
  for (size_t i = 0; i < s->n; i++) s->want[bytes[i]]++;
  free(hx);
  *out = s;
  return 0;
}

static cudaError_t histogram_run(void *p, cudaStream_t stream) {
  histogram_state *s = p;
  return s->v->fn(s->x, s->counts, s->n, stream);
}

static void histogram_ref(const void *p, size_t begin, size_t count, double *want, double *scale) {
  const histogram_state *s = p;
  (void)scale;
  for (size_t i = 0; i < count; i++) want[i] = s->want[begin + i];
}

static int histogram_verify(void *p, char *err, size_t errlen) {
  histogram_state *s = p;
  void *got;
  if (bench_download_elems(ELEM_I32, s->counts, HISTOGRAM_BINS, &got, err, errlen)) return -1;
  int rc = verify_elems(s->v->name, ELEM_I32, got, HISTOGRAM_BINS, histogram_ref, s, TOL_EXACT, err, errlen);
  free(got);
  return rc;
}

/* The next variant at this size keeps x and gets the counts poisoned again: one set-up per size. */
static int histogram_reuse(void *p, const bench_case *c, char *err, size_t errlen) {
  histogram_state *s = p;
  s->v = c->arg;
  return bench_poison(s->counts, HISTOGRAM_BINS * elem_size(ELEM_I32), err, errlen);
}

static const bench_ops kHistogramOps = {histogram_setup, histogram_run, histogram_verify, histogram_teardown,
                                        histogram_reuse};

/* Reads N bytes: GB/s from the input alone. */
static void histogram_cost(bench_case *c) { c->bytes = (double)c->params[0].value; }

int main(int argc, char **argv) {
  bench_register_grid(&(bench_grid){.family = "histogram",
                                    .ops = &kHistogramOps,
                                    BENCH_VARIANTS(histogram_variants, histogram_nvariants),
                                    .param_names = {"N"},
                                    .sizes = kSizes,
                                    .nsizes = sizeof kSizes / sizeof *kSizes,
                                    .cost = histogram_cost});
  return bench_main(argc, argv);
}
