/* Benchmarks of kernels/transpose: the ladder (naive -> unrolled -> shared
 * memory -> padded -> vectorised) and cuBLAS sgeam (a library reference), every
 * variant at every shape. Self-check: every output element must equal its
 * input element exactly (a transpose only moves values; the poison NaN of an
 * unwritten element never passes). */
#include <stdio.h>
#include <stdlib.h>

#include "kernels/transpose/transpose.h"
#include "kernels/transpose/transpose_variants.h"
#include "perf/runner/bench.h"
#include "perf/runner/bench_util.h"
#include "perf/runner/verify.h"

/* nx x ny (`in` has ny rows of nx): 4 MiB (inside L2: the flush matters),
 * 256 MiB (far beyond the 50 MB L2), and two odd 128 MiB shapes whose sizes are
 * multiples of no tile or vector width (tile64_vec's scalar path, ragged edges), wide and
 * tall (4093 and 8191 are primes). */
static const long long kShapes[][2] = {{1024, 1024}, {8192, 8192}, {8191, 4099}, {4093, 8191}};

typedef struct {
  const transpose_variant *v;
  int nx, ny;
  float *in, *out; /* device */
  float *hin;      /* host copy of the input */
} transpose_state;

static void transpose_teardown(void *p) {
  transpose_state *s = p;
  cudaFree(s->in);
  cudaFree(s->out);
  free(s->hin);
  free(s);
}

static int transpose_setup(const bench_case *c, uint64_t seed, void **out, char *err, size_t errlen) {
  transpose_state *s = calloc(1, sizeof *s);
  if (!s) return snprintf(err, errlen, "out of host memory"), -1;
  s->v = c->arg;
  s->nx = (int)c->params[0].value;
  s->ny = (int)c->params[1].value;
  size_t n = (size_t)s->nx * (size_t)s->ny;
  test_rng rng;
  rng_seed(&rng, seed);
  if (bench_random_device(n, -1.0f, 1.0f, &rng, &s->in, &s->hin, err, errlen) ||
      bench_poisoned_device(n, &s->out, err, errlen)) {
    transpose_teardown(s);
    return -1;
  }
  *out = s;
  return 0;
}

static cudaError_t transpose_run(void *p, cudaStream_t stream) {
  transpose_state *s = p;
  return s->v->fn(s->in, s->out, s->nx, s->ny, stream);
}

/* out[x * ny + y] = in[y * nx + x], for the output elements begin.. in order. */
static void transpose_ref(const void *p, size_t begin, size_t count, double *want, double *scale) {
  const transpose_state *s = p;
  size_t nx = (size_t)s->nx, ny = (size_t)s->ny;
  size_t x = begin / ny, y = begin % ny;
  (void)scale;
  for (size_t i = 0; i < count; i++) {
    want[i] = s->hin[y * nx + x];
    if (++y == ny) {
      y = 0;
      x++;
    }
  }
}

static int transpose_verify(void *p, char *err, size_t errlen) {
  transpose_state *s = p;
  size_t n = (size_t)s->nx * (size_t)s->ny;
  float *got;
  if (bench_download(s->out, n, &got, err, errlen)) return -1;
  /* A transpose does no arithmetic: exact. */
  int rc = verify_f32(s->v->name, got, n, transpose_ref, s, TOL_EXACT, err, errlen);
  free(got);
  return rc;
}

static int transpose_reuse(void *p, const bench_case *c, char *err, size_t errlen) {
  transpose_state *s = p;
  s->v = c->arg;
  return bench_poison(s->out, (size_t)s->nx * (size_t)s->ny * sizeof(float), err, errlen);
}

static const bench_ops kTransposeOps = {transpose_setup, transpose_run, transpose_verify, transpose_teardown,
                                        transpose_reuse};

/* Bytes: the fewest the operation must move, each element read once and written once. */
static void transpose_cost(bench_case *c) { c->bytes = 2 * 4 * (double)c->params[0].value * c->params[1].value; }

int main(int argc, char **argv) {
  bench_register_grid(&(bench_grid){.family = "transpose",
                                    .ops = &kTransposeOps,
                                    BENCH_VARIANTS(transpose_variants, transpose_nvariants),
                                    .reference_at = offsetof(transpose_variant, reference),
                                    .param_names = {"nx", "ny"},
                                    .sizes = &kShapes[0][0],
                                    .nsizes = sizeof kShapes / sizeof *kShapes,
                                    .cost = transpose_cost});
  return bench_main(argc, argv);
}
