/* Benchmarks of kernels/dot: tree_host_finish, tree_atomic, shuffle_vec4 and
 * cuBLAS sdot (a library reference), every variant at every size.
 *
 * Self-check: the float result against the fp64 dot product of the same
 * inputs (products are exact in double), within the rounding bound of the
 * variant's summation order (its depth in kernels/dot/dot_variants.c, shared
 * with dot_test.c). x and y are uniform in [0.5, 1): non-zero, products of one sign, so
 * the bound, relative to sum |x_i y_i| = the result itself, stays a small
 * fraction of it (at 2^28 on 132 SMs: 5e-4 for tree_host_finish, 7e-4 for
 * tree_atomic, 5e-4 for shuffle_vec4, 4e-3 for cuBLAS's assumed order); mixed
 * signs would cancel and make the same bound larger than the result. Exact
 * integer checks are the Check test's job. */
#include <stdio.h>
#include <stdlib.h>

#include "kernels/dot/dot.h"
#include "kernels/dot/dot_variants.h"
#include "perf/runner/bench.h"
#include "perf/runner/bench_util.h"

/* 1 Mi floats per array (2 x 4 MiB, inside L2: the flush matters), 16 Mi
 * (2 x 64 MiB) and 256 Mi (2 x 1 GiB, far beyond the 50 MB L2). */
static const long long kSizes[] = {1ll << 20, 1ll << 24, 1ll << 28};

typedef struct {
  const dot_variant *v;
  bench_scalar_case c; /* x = in[0], y = in[1], the one-float result and the workspace */
} dot_state;

static void dot_teardown(void *p) {
  dot_state *s = p;
  bench_scalar_free(&s->c);
  free(s);
}

static int dot_setup(const bench_case *c, uint64_t seed, void **out, char *err, size_t errlen) {
  dot_state *s = calloc(1, sizeof *s);
  if (!s) return snprintf(err, errlen, "out of host memory"), -1;
  s->v = c->arg;
  size_t n = (size_t)c->params[0].value;
  char what[64];
  snprintf(what, sizeof what, "dot_work_bytes(%zu)", n);
  if (bench_scalar_setup(&s->c, n, 2, dot_work_bytes(n), what, seed, err, errlen)) {
    free(s);
    return -1;
  }
  *out = s;
  return 0;
}

static cudaError_t dot_run(void *p, cudaStream_t stream) {
  dot_state *s = p;
  return s->v->fn(s->c.in[0], s->c.in[1], s->c.n, s->c.result, s->c.work, stream);
}

static int dot_verify(void *p, char *err, size_t errlen) {
  dot_state *s = p;
  return bench_scalar_verify(&s->c, s->v->name, s->v->depth(s->c.n, s->c.sms), err, errlen);
}

static int dot_reuse(void *p, const bench_case *c, char *err, size_t errlen) {
  dot_state *s = p;
  s->v = c->arg;
  return bench_scalar_reuse(&s->c, err, errlen);
}

static const bench_ops kDotOps = {dot_setup, dot_run, dot_verify, dot_teardown, dot_reuse};

/* Bytes: the fewest the operation must move, x and y read once and the 4-byte result written once
 * (workspace traffic is the variant's cost). */
static void dot_cost(bench_case *c) {
  double n = (double)c->params[0].value;
  c->bytes = 8 * n + 4;
  c->flops = 2 * n;
}

int main(int argc, char **argv) {
  bench_register_grid(&(bench_grid){.family = "dot",
                                    .ops = &kDotOps,
                                    BENCH_VARIANTS(dot_variants, dot_nvariants),
                                    .reference_at = offsetof(dot_variant, reference),
                                    .host_round_trip_at = offsetof(dot_variant, host_round_trip),
                                    .param_names = {"N"},
                                    .sizes = kSizes,
                                    .nsizes = sizeof kSizes / sizeof *kSizes,
                                    .cost = dot_cost});
  return bench_main(argc, argv);
}
