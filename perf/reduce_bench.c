/* Benchmarks of kernels/reduce: the ladder v0..v7 and CUB (a reference), every
 * variant at every size.
 *
 * Self-check: the float sum against the fp64 sum of the same inputs, within
 * the rounding bound of the variant's summation order (the derivation of
 * tests/reduce_test.c, repeated here). The inputs are uniform in [0.5, 1):
 * non-zero and of one sign, so the bound, relative to sum |x_i| = the sum
 * itself, stays a small fraction of the result: at 2^28 on 132 SMs 2e-6 for
 * v0..v5, 1e-3 for v6, 1e-4 for v7, 4e-3 for CUB's assumed order; a lost or
 * doubled stretch of work shows when it exceeds that (at 2^20 about 2
 * elements for v0; at 2^28 from ~500 elements for v0 to ~1e6 for CUB). Mixed
 * signs would cancel and make the same bound larger than the result. Exact
 * integer checks of every summation path are the Check test's job. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "kernels/reduce/reduce.h"
#include "perf/bench.h"
#include "perf/bench_util.h"

/* 1 Mi floats (4 MiB, inside L2: the flush matters), 16 Mi (64 MiB) and
 * 256 Mi (1 GiB, far beyond the 50 MB L2). */
static const long long kSizes[] = {1ll << 20, 1ll << 24, 1ll << 28};

enum { B = REDUCE_BLOCK, CAP = REDUCE_MAX_PARTIALS, UNROLL = 4 };

static size_t ceil_div(size_t a, size_t b) { return (a + b - 1) / b; }
static size_t max_size(size_t a, size_t b) { return a > b ? a : b; }
static size_t min_size(size_t a, size_t b) { return a < b ? a : b; }

/* Passes of a multi-pass variant whose blocks each turn `reach` values into one. */
static size_t passes(size_t n, size_t reach) {
  size_t p = 1;
  for (size_t c = ceil_div(n, reach); c > 1; c = ceil_div(c, reach)) p++;
  return p;
}

/* Items per thread of a grid-stride loop over `items` with a grid of
 * min(device fill, ceil(items / per_block), CAP) blocks of B threads: the
 * work's own grid, or a capped one of at least min(SMs, CAP) blocks. */
static size_t per_thread(size_t items, size_t per_block, size_t sms) {
  return max_size(ceil_div(per_block, B), ceil_div(items, min_size(sms, CAP) * B));
}

/* Depth: the most roundings any element goes through (tree levels plus
 * sequential additions), per variant (see reduce.h). log2(B) = 8. */
static size_t depth_v0_v2(size_t n, size_t sms) {
  (void)sms;
  return 8 * passes(n, B); /* a tree of 8 levels per pass */
}
static size_t depth_v3_v5(size_t n, size_t sms) {
  (void)sms;
  return 9 * passes(n, 2 * B); /* + the add while loading */
}
static size_t depth_v6(size_t n, size_t sms) {
  /* 2 adds per grid-stride step, 8 tree levels; the one-block second pass over
   * <= CAP totals: 2 CAP / 2B adds per thread, 8 levels. */
  return 2 * per_thread(n, 2 * B, sms) + 8 + 2 * ceil_div(CAP, 2 * B) + 8;
}
static size_t depth_v7(size_t n, size_t sms) {
  /* 2 levels inside a float4, 2 combining 4 float4s, one add per step into the
   * running sum, head and tail scalars; 10 shuffle levels; the last block:
   * CAP / B adds per thread, 10 levels. */
  return 4 + per_thread(ceil_div(n, 4), UNROLL * B, sms) + 2 + 10 + ceil_div(CAP, B) + 10;
}
static size_t depth_library(size_t n, size_t sms) {
  /* CUB's order is its own: assumed to spread the work over at least one warp
   * per SM, with at most 64 levels of trees and finishing passes. */
  return ceil_div(n, 32 * sms) + 64;
}

typedef struct {
  const char *name;
  reduce_fn fn;
  size_t (*depth)(size_t n, size_t sms);
  int reference;
} reduce_variant;

static const reduce_variant kVariants[] = {
    {"v0_interleaved", reduce_v0_interleaved, depth_v0_v2, 0},
    {"v1_strided_index", reduce_v1_strided_index, depth_v0_v2, 0},
    {"v2_sequential", reduce_v2_sequential, depth_v0_v2, 0},
    {"v3_first_add_on_load", reduce_v3_first_add_on_load, depth_v3_v5, 0},
    {"v4_unroll_last_warp", reduce_v4_unroll_last_warp, depth_v3_v5, 0},
    {"v5_full_unroll", reduce_v5_full_unroll, depth_v3_v5, 0},
    {"v6_multi_add", reduce_v6_multi_add, depth_v6, 0},
    {"v7_shuffle_vec4", reduce_v7_shuffle_vec4, depth_v7, 0},
    {"cub", reduce_cub, depth_library, 1},
};

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
  for (size_t v = 0; v < sizeof kVariants / sizeof *kVariants; v++)
    for (size_t i = 0; i < sizeof kSizes / sizeof *kSizes; i++) {
      double n = (double)kSizes[i];
      /* Bytes: the fewest the operation must move, each input read once and
       * the 4-byte result written once (workspace traffic is the variant's cost). */
      bench_register(&(bench_case){.family = "reduce", .variant = kVariants[v].name, .params = {{"N", kSizes[i]}},
                                   .bytes = 4 * n + 4, .flops = n, .reference = kVariants[v].reference,
                                   .ops = &kReduceOps, .arg = &kVariants[v]});
    }
  return bench_main(argc, argv);
}
