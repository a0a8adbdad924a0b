/* Benchmarks of kernels/reduce: the ladder v0..v8 and CUB (a library reference), every
 * variant at every size.
 *
 * Self-check: the float sum against the fp64 sum of the same inputs, within
 * the rounding bound of the variant's summation order (its depth in
 * kernels/reduce/reduce_variants.c, shared with reduce_test.c). The inputs are uniform in [0.5, 1):
 * non-zero and of one sign, so the bound, relative to sum |x_i| = the sum
 * itself, stays a small fraction of the result: at 2^28 on 132 SMs 2e-6 for
 * v0..v5, 1e-3 for v6, 1e-4 for v7 and v8, 4e-3 for CUB's assumed order; a lost or
 * doubled stretch of work shows when it exceeds that (at 2^20 about 2
 * elements for v0; at 2^28 from ~500 elements for v0 to ~1e6 for CUB). Mixed
 * signs would cancel and make the same bound larger than the result. Exact
 * integer checks of every summation path are the Check test's job. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "kernels/reduce/reduce.h"
#include "kernels/reduce/reduce_variants.h"
#include "perf/runner/bench.h"
#include "perf/runner/bench_util.h"

/* 1 Mi floats (4 MiB, inside L2: the flush matters), 16 Mi (64 MiB) and
 * 256 Mi (1 GiB, far beyond the 50 MB L2). */
static const long long kSizes[] = {1ll << 20, 1ll << 24, 1ll << 28};

typedef struct {
  const reduce_variant *v;
  bench_scalar_case c; /* x = in[0], the one-float sum and the workspace */
} reduce_state;

static void reduce_teardown(void *p) {
  reduce_state *s = p;
  bench_scalar_free(&s->c);
  free(s);
}

static int reduce_setup(const bench_case *c, uint64_t seed, void **out, char *err, size_t errlen) {
  reduce_state *s = calloc(1, sizeof *s);
  if (!s) return snprintf(err, errlen, "out of host memory"), -1;
  s->v = c->arg;
  size_t n = (size_t)c->params[0].value, work_bytes = reduce_work_bytes(n);
  char what[64];
  snprintf(what, sizeof what, "reduce_work_bytes(%zu)", n);
  if (work_bytes == SIZE_MAX) {
    snprintf(err, errlen, "%s: the device cannot be queried", what);
    free(s);
    return -1;
  }
  if (bench_scalar_setup(&s->c, n, 1, work_bytes, what, seed, err, errlen)) {
    free(s);
    return -1;
  }
  *out = s;
  return 0;
}

static cudaError_t reduce_run(void *p, cudaStream_t stream) {
  reduce_state *s = p;
  return s->v->fn(s->c.in[0], s->c.n, s->c.result, s->c.work, stream);
}

static int reduce_verify(void *p, char *err, size_t errlen) {
  reduce_state *s = p;
  return bench_scalar_verify(&s->c, s->v->name, s->v->depth(s->c.n, s->c.sms), err, errlen);
}

static int reduce_reuse(void *p, const bench_case *c, char *err, size_t errlen) {
  reduce_state *s = p;
  s->v = c->arg;
  return bench_scalar_reuse(&s->c, err, errlen);
}

static const bench_ops kReduceOps = {reduce_setup, reduce_run, reduce_verify, reduce_teardown, reduce_reuse};

/* Bytes: the fewest the operation must move, each input read once and the 4-byte result written
 * once (workspace traffic is the variant's cost). */
static void reduce_cost(bench_case *c) {
  double n = (double)c->params[0].value;
  c->bytes = 4 * n + 4;
  c->flops = n;
}

int main(int argc, char **argv) {
  bench_register_grid(&(bench_grid){.family = "reduce",
                                    .ops = &kReduceOps,
                                    BENCH_VARIANTS(reduce_variants, reduce_nvariants),
                                    .reference_at = offsetof(reduce_variant, reference),
                                    .param_names = {"N"},
                                    .sizes = kSizes,
                                    .nsizes = sizeof kSizes / sizeof *kSizes,
                                    .cost = reduce_cost});
  return bench_main(argc, argv);
}
