/* Benchmarks of kernels/dot: tree_host_finish, tree_atomic, shuffle_vec4 and
 * cuBLAS sdot (a reference), every variant at every size.
 *
 * Self-check: the float result against the fp64 dot product of the same
 * inputs (products are exact in double), within the rounding bound of the
 * variant's summation order (the derivation of tests/dot_test.c, repeated
 * here). x and y are uniform in [0.5, 1): non-zero, products of one sign, so
 * the bound, relative to sum |x_i y_i| = the result itself, stays a small
 * fraction of it (at 2^28 on 132 SMs: 5e-4 for tree_host_finish, 7e-4 for
 * tree_atomic, 5e-4 for shuffle_vec4, 4e-3 for cuBLAS's assumed order); mixed
 * signs would cancel and make the same bound larger than the result. Exact
 * integer checks are the Check test's job. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "kernels/dot/dot.h"
#include "perf/bench.h"
#include "perf/bench_util.h"

/* 1 Mi floats per array (2 x 4 MiB, inside L2: the flush matters), 16 Mi
 * (2 x 64 MiB) and 256 Mi (2 x 1 GiB, far beyond the 50 MB L2). */
static const long long kSizes[] = {1ll << 20, 1ll << 24, 1ll << 28};

enum { B = DOT_BLOCK, CAP = DOT_MAX_PARTIALS, UNROLL = 4 };

static size_t ceil_div(size_t a, size_t b) { return (a + b - 1) / b; }
static size_t max_size(size_t a, size_t b) { return a > b ? a : b; }
static size_t min_size(size_t a, size_t b) { return a < b ? a : b; }

/* Items per thread of a grid-stride loop over `items` with a grid of
 * min(device fill, ceil(items / per_block), CAP) blocks of B threads: the
 * work's own grid, or a capped one of at least min(SMs, CAP) blocks. */
static size_t per_thread(size_t items, size_t per_block, size_t sms) {
  return max_size(ceil_div(per_block, B), ceil_div(items, min_size(sms, CAP) * B));
}

/* Depth: the most roundings any product goes through, its own rounding
 * included (see dot.h). log2(B) = 8. */
static size_t depth_tree_host(size_t n, size_t sms) {
  /* The product, one add per grid-stride step, 8 tree levels; the host's
   * double sum of the block totals (~2^-53 each) and one rounding to float. */
  return 1 + per_thread(n, B, sms) + 8 + 2;
}
static size_t depth_tree_atomic(size_t n, size_t sms) {
  /* As above, then the block totals atomicAdded one after another, in any
   * order: up to one add per block. */
  return 1 + per_thread(n, B, sms) + 8 + min_size(ceil_div(n, B), CAP);
}
static size_t depth_vec4(size_t n, size_t sms) {
  /* The product, 2 levels inside a float4 pair, 2 combining 4 pairs, one add
   * per step into the running sum, head and tail scalars; 10 shuffle levels;
   * the last block: CAP / B adds per thread, 10 levels. */
  return 1 + 4 + per_thread(n, UNROLL * B, sms) + 2 + 10 + ceil_div(CAP, B) + 10;
}
static size_t depth_library(size_t n, size_t sms) {
  /* cuBLAS's order is its own: assumed to spread the work over at least one
   * warp per SM, with at most 64 levels of trees and finishing passes. */
  return 1 + ceil_div(n, 32 * sms) + 64;
}

typedef struct {
  const char *name;
  dot_fn fn;
  size_t (*depth)(size_t n, size_t sms);
  int reference;
} dot_variant;

static const dot_variant kVariants[] = {
    {"tree_host_finish", dot_tree_host_finish, depth_tree_host, 0},
    {"tree_atomic", dot_tree_atomic, depth_tree_atomic, 0},
    {"shuffle_vec4", dot_shuffle_vec4, depth_vec4, 0},
    {"cublas", dot_cublas, depth_library, 1},
};

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
  for (size_t v = 0; v < sizeof kVariants / sizeof *kVariants; v++)
    for (size_t i = 0; i < sizeof kSizes / sizeof *kSizes; i++) {
      double n = (double)kSizes[i];
      /* Bytes: the fewest the operation must move, x and y read once and the
       * 4-byte result written once (workspace traffic is the variant's cost). */
      bench_register(&(bench_case){.family = "dot", .variant = kVariants[v].name, .params = {{"N", kSizes[i]}},
                                   .bytes = 8 * n + 4, .flops = 2 * n, .reference = kVariants[v].reference,
                                   .ops = &kDotOps, .arg = &kVariants[v]});
    }
  return bench_main(argc, argv);
}
