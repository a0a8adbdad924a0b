/* A test family for reuse_test.sh: copies a random input, with a reuse op that says on stderr when
 * it sets up and when it reuses. Its variants, in order: "copies", "writes_nothing" (a kernel that
 * forgot its output: it must fail its self-check although "copies" left the right answer in the
 * shared output), "copies_again" (sets up anew: the failed variant's state was torn down). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "perf/runner/bench.h"
#include "perf/runner/bench_util.h"
#include "perf/runner/verify.h"

typedef struct {
  const char *name;
  int writes;
} reuse_variant;

static const reuse_variant kVariants[] = {{"copies", 1}, {"writes_nothing", 0}, {"copies_again", 1}};
/* Not multiples of any vector width. */
static const long long kSizes[] = {4097, 3};

typedef struct {
  const reuse_variant *v;
  size_t n;
  float *src, *dst, *hsrc;
} reuse_state;

static void reuse_teardown(void *p) {
  reuse_state *s = p;
  cudaFree(s->src);
  cudaFree(s->dst);
  free(s->hsrc);
  free(s);
}

static int reuse_setup(const bench_case *c, uint64_t seed, void **out, char *err, size_t errlen) {
  reuse_state *s = calloc(1, sizeof *s);
  if (!s) return snprintf(err, errlen, "out of host memory"), -1;
  s->v = c->arg;
  s->n = (size_t)c->params[0].value;
  test_rng rng;
  rng_seed(&rng, seed);
  if (bench_random_device(s->n, -1.0f, 1.0f, &rng, &s->src, &s->hsrc, err, errlen) ||
      bench_poisoned_device(s->n, &s->dst, err, errlen)) {
    reuse_teardown(s);
    return -1;
  }
  fprintf(stderr, "reuse_bench: set up for %s N:%zu\n", s->v->name, s->n);
  *out = s;
  return 0;
}

static int reuse_reuse(void *p, const bench_case *c, char *err, size_t errlen) {
  reuse_state *s = p;
  s->v = c->arg;
  fprintf(stderr, "reuse_bench: reused for %s N:%zu\n", s->v->name, s->n);
  return bench_poison(s->dst, s->n * sizeof(float), err, errlen);
}

static cudaError_t reuse_run(void *p, cudaStream_t stream) {
  reuse_state *s = p;
  if (!s->v->writes) return cudaSuccess;
  return cudaMemcpyAsync(s->dst, s->src, s->n * sizeof(float), cudaMemcpyDeviceToDevice, stream);
}

static void reuse_ref(const void *p, size_t begin, size_t count, double *want, double *scale) {
  const reuse_state *s = p;
  (void)scale;
  for (size_t i = 0; i < count; i++) want[i] = s->hsrc[begin + i];
}

static int reuse_verify(void *p, char *err, size_t errlen) {
  reuse_state *s = p;
  float *got;
  if (bench_download(s->dst, s->n, &got, err, errlen)) return -1;
  int rc = verify_f32(s->v->name, got, s->n, reuse_ref, s, TOL_EXACT, err, errlen);
  free(got);
  return rc;
}

static const bench_ops kOps = {reuse_setup, reuse_run, reuse_verify, reuse_teardown, reuse_reuse};

static void reuse_cost(bench_case *c) { c->bytes = 8.0 * c->params[0].value; }

int main(int argc, char **argv) {
  bench_register_grid(&(bench_grid){.family = "reuse",
                                    .ops = &kOps,
                                    BENCH_VARIANTS(kVariants, 3),
                                    .param_names = {"N"},
                                    .sizes = kSizes,
                                    .nsizes = 2,
                                    .cost = reuse_cost});
  return bench_main(argc, argv);
}
