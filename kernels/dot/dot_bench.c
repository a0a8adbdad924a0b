/* Benchmarks of kernels/dot: tree_host_finish, tree_atomic, shuffle_vec4 and
 * cuBLAS sdot (a reference), every variant at every size.
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
#include <math.h>
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
  size_t n, sms;
  float *x, *y, *result; /* device: inputs, one-float result */
  void *work;            /* device workspace, dot_work_bytes(n) */
  double want, abs_sum;  /* fp64 dot product and sum |x_i y_i| */
} dot_state;

static void dot_teardown(void *p) {
  dot_state *s = p;
  cudaFree(s->x);
  cudaFree(s->y);
  cudaFree(s->result);
  cudaFree(s->work);
  free(s);
}

static int dot_setup(const bench_case *c, uint64_t seed, void **out, char *err, size_t errlen) {
  dot_state *s = calloc(1, sizeof *s);
  if (!s) return snprintf(err, errlen, "out of host memory"), -1;
  s->v = c->arg;
  s->n = (size_t)c->params[0].value;
  test_rng rng;
  rng_seed(&rng, seed);
  float *hx = NULL, *hy = NULL;
  if (bench_sm_count(&s->sms, err, errlen) || bench_random_device(s->n, 0.5f, 1.0f, &rng, &s->x, &hx, err, errlen) ||
      bench_random_device(s->n, 0.5f, 1.0f, &rng, &s->y, &hy, err, errlen) ||
      bench_poisoned_device(1, &s->result, err, errlen)) {
    free(hx);
    free(hy);
    dot_teardown(s);
    return -1;
  }
  /* The reference is two numbers: computed now, so the host copies go. */
  for (size_t i = 0; i < s->n; i++) {
    double prod = (double)hx[i] * hy[i]; /* exact: 24 + 24 bits fit in 53 */
    s->want += prod;
    s->abs_sum += fabs(prod);
  }
  free(hx);
  free(hy);
  /* The workspace is allocated here, outside the timing. */
  size_t work_bytes = dot_work_bytes(s->n);
  cudaError_t e = cudaMalloc(&s->work, work_bytes);
  if (e != cudaSuccess) {
    snprintf(err, errlen, "workspace of dot_work_bytes(%zu) = %zu bytes: %s", s->n, work_bytes, cudaGetErrorString(e));
    dot_teardown(s);
    return -1;
  }
  *out = s;
  return 0;
}

static cudaError_t dot_run(void *p, cudaStream_t stream) {
  dot_state *s = p;
  return s->v->fn(s->x, s->y, s->n, s->result, s->work, stream);
}

static int dot_verify(void *p, char *err, size_t errlen) {
  dot_state *s = p;
  /* Rounding bound of the variant's order, plus the fp64 reference's own
   * error (n additions, each <= 2^-53 of the running sum <= sum |x_i y_i|). */
  double tol = sum_error_bound(s->v->depth(s->n, s->sms), s->abs_sum) + (double)s->n * 0x1p-53 * s->abs_sum;
  char what[128];
  snprintf(what, sizeof what, "%s (tolerance %.3g)", s->v->name, tol);
  return bench_verify_scalar(what, s->result, s->want, tol, err, errlen);
}

static const bench_ops kDotOps = {dot_setup, dot_run, dot_verify, dot_teardown};

int main(int argc, char **argv) {
  for (size_t v = 0; v < dot_nvariants; v++)
    for (size_t i = 0; i < sizeof kSizes / sizeof *kSizes; i++) {
      double n = (double)kSizes[i];
      /* Bytes: the fewest the operation must move, x and y read once and the
       * 4-byte result written once (workspace traffic is the variant's cost). */
      bench_register(&(bench_case){.family = "dot", .variant = dot_variants[v].name, .params = {{"N", kSizes[i]}},
                                   .bytes = 8 * n + 4, .flops = 2 * n, .reference = dot_variants[v].reference,
                                   .ops = &kDotOps, .arg = &dot_variants[v]});
    }
  return bench_main(argc, argv);
}
