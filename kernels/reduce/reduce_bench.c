/* Benchmarks of kernels/reduce: the ladder v0..v8 and CUB (a reference), every
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
#include <math.h>
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
  size_t n, sms;
  float *x, *sum;        /* device: input, one-float result */
  void *work;            /* device workspace, reduce_work_bytes(n) */
  double want, abs_sum;  /* fp64 sum of the inputs and of their magnitudes */
} reduce_state;

static void reduce_teardown(void *p) {
  reduce_state *s = p;
  cudaFree(s->x);
  cudaFree(s->sum);
  cudaFree(s->work);
  free(s);
}

static int reduce_setup(const bench_case *c, uint64_t seed, void **out, char *err, size_t errlen) {
  reduce_state *s = calloc(1, sizeof *s);
  if (!s) return snprintf(err, errlen, "out of host memory"), -1;
  s->v = c->arg;
  s->n = (size_t)c->params[0].value;
  test_rng rng;
  rng_seed(&rng, seed);
  float *hx = NULL;
  if (bench_sm_count(&s->sms, err, errlen) || bench_random_device(s->n, 0.5f, 1.0f, &rng, &s->x, &hx, err, errlen) ||
      bench_poisoned_device(1, &s->sum, err, errlen)) {
    free(hx);
    reduce_teardown(s);
    return -1;
  }
  /* The reference is two numbers: computed now, so the 1 GiB host copy goes. */
  for (size_t i = 0; i < s->n; i++) {
    s->want += hx[i];
    s->abs_sum += fabs(hx[i]);
  }
  free(hx);
  /* The workspace is allocated here, outside the timing. */
  size_t work_bytes = reduce_work_bytes(s->n);
  if (work_bytes == SIZE_MAX) {
    snprintf(err, errlen, "reduce_work_bytes(%zu): the device cannot be queried", s->n);
    reduce_teardown(s);
    return -1;
  }
  cudaError_t e = cudaMalloc(&s->work, work_bytes);
  if (e != cudaSuccess) {
    snprintf(err, errlen, "workspace of reduce_work_bytes(%zu) = %zu bytes: %s", s->n, work_bytes,
             cudaGetErrorString(e));
    reduce_teardown(s);
    return -1;
  }
  *out = s;
  return 0;
}

static cudaError_t reduce_run(void *p, cudaStream_t stream) {
  reduce_state *s = p;
  return s->v->fn(s->x, s->n, s->sum, s->work, stream);
}

static int reduce_verify(void *p, char *err, size_t errlen) {
  reduce_state *s = p;
  /* Rounding bound of the variant's order, plus the fp64 reference's own
   * error (n additions, each <= 2^-53 of the running sum <= sum |x_i|). */
  double tol = sum_error_bound(s->v->depth(s->n, s->sms), s->abs_sum) + (double)s->n * 0x1p-53 * s->abs_sum;
  char what[128];
  snprintf(what, sizeof what, "%s (tolerance %.3g)", s->v->name, tol);
  return bench_verify_scalar(what, s->sum, s->want, tol, err, errlen);
}

static const bench_ops kReduceOps = {reduce_setup, reduce_run, reduce_verify, reduce_teardown};

int main(int argc, char **argv) {
  for (size_t v = 0; v < reduce_nvariants; v++)
    for (size_t i = 0; i < sizeof kSizes / sizeof *kSizes; i++) {
      double n = (double)kSizes[i];
      /* Bytes: the fewest the operation must move, each input read once and
       * the 4-byte result written once (workspace traffic is the variant's cost). */
      bench_register(&(bench_case){.family = "reduce", .variant = reduce_variants[v].name, .params = {{"N", kSizes[i]}},
                                   .bytes = 4 * n + 4, .flops = n, .reference = reduce_variants[v].reference,
                                   .ops = &kReduceOps, .arg = &reduce_variants[v]});
    }
  return bench_main(argc, argv);
}
