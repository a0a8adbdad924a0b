/* Correctness of kernels/dot against an fp64 CPU reference.
 *
 * Every variant, every size below, three kinds of fresh random input, x and y
 * at offsets 0..3 floats from 16-byte alignment (equal offsets: the float4
 * path after a scalar head; different offsets: the scalar path), each variant
 * run twice on the same workspace (poisoned before its first run). The result
 * sits in a guarded buffer poisoned before every run; the inputs must come
 * back unchanged.
 *
 * Inputs, and what each one catches:
 *  - integer: nonzero integers in [-15, 15] for x and y. Products (<= 225) and
 *    every partial sum stay far below 2^24 (Bernstein: the largest, over 1.3e8
 *    products, has a standard deviation < 2^20; passing 2^24 has probability
 *    < 1e-50 anywhere), so every operation is exact in any order (fused or not) and the
 *    result must equal the fp64 reference exactly (tolerance 0): one dropped or
 *    doubled product, at any size, changes the result by at least 1.
 *  - positive: uniform [0, 1). No cancellation; checks the rounding bound.
 *  - mixed: uniform [-1, 1). Cancelling data.
 * Tolerance for the float inputs: sum_error_bound(depth, sum |x_i y_i|), the
 * depth (most roundings any product goes through, its own rounding included)
 * derived per variant in kernels/dot/dot_variants.c, plus the fp64 reference's
 * own error (products are exact in double; the sum adds at most
 * n 2^-53 sum |x_i y_i|).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/dot/dot.h"
#include "kernels/dot/dot_variants.h"
#include "tests/support/gpu_check.h"
#include "tests/support/host_check.h"

/* Not multiples of the block (256) or the vector width (4); primes among them;
 * two beyond 2^24. */
static const size_t kSizes[] = {0,   1,    3,    4,    5,     31,      255,      256,
                                257, 1023, 1025, 4097, 65537, 1000003, 16777259, 134217729};
#define NSIZES (int)(sizeof kSizes / sizeof kSizes[0])

/* x and y offsets (floats) from 16-byte alignment: equal ones, then unequal. */
static const size_t kOffsets[][2] = {{0, 0}, {1, 1}, {2, 2}, {3, 3}, {1, 2}, {0, 3}};
#define NOFFSETS (int)(sizeof kOffsets / sizeof kOffsets[0])

/* Every pair runs at every size up to 2^24. Beyond it a pair moves 2 GiB between host and device
 * (1.5-2 s on an H100 host; all six made this the longest test of the suite, 39 s): the largest
 * size takes the aligned pair, an equal misalignment (a peeled head) and an unequal one. */
static int offsets_wanted(size_t n, int o) { return n <= ((size_t)1 << 24) || o == 0 || o == 3 || o == 4; }

static size_t g_sms; /* SMs of the device: a grid sized to fill it has at least this many blocks */
static cudaStream_t g_stream;

/* The variants and their accuracy model: kernels/dot/dot_variants.c. */
#define NVARIANTS (int)dot_nvariants

typedef enum { INTEGER, POSITIVE, MIXED, NKINDS } input_kind;
static const char *const kKindNames[] = {"integer", "positive", "mixed"};

static void fill_input(float *x, size_t n, input_kind kind, test_rng *rng) {
  if (kind == INTEGER) fill_int_uniform(x, n, 15, rng);
  if (kind == POSITIVE) fill_uniform(x, n, 0.0f, 1.0f, rng);
  if (kind == MIXED) fill_uniform(x, n, -1.0f, 1.0f, rng);
}

/* Runs one variant twice on the same (poisoned) workspace; returns the number
 * of failed runs after printing one line for both. */
static int check_variant(const dot_variant *v, const float *dx, const float *dy, size_t n, const size_t *offsets,
                         input_kind kind, void *work, size_t work_bytes, guarded_buf *dres, double want,
                         double abs_sum) {
  double tol = 0.0;
  if (kind != INTEGER) tol = sum_error_bound(v->depth(n, g_sms), abs_sum) + (double)n * 0x1p-53 * abs_sum;
  float got[2];
  int bad = 0;
  CUDA_OK(cudaMemsetAsync(work, 0xFF, work_bytes, g_stream));
  for (int run = 0; run < 2; run++) {
    gbuf_poison(dres, g_stream); /* output and guards */
    CUDA_OK(v->fn(dx, dy, n, dres->ptr, work, g_stream));
    CUDA_OK(cudaStreamSynchronize(g_stream));
    gbuf_download(dres, &got[run]);
    bad += compare_f32(&got[run], &want, NULL, 1, (tolerance){.abs = tol}).bad != 0;
  }
  printf("%-16s n=%-10zu %-8s off=%zu,%zu got=%.9g,%.9g%s want=%.17g err=%.3g,%.3g tol=%.3g %s\n", v->name, n,
         kKindNames[kind], offsets[0], offsets[1], got[0], got[1],
         is_poison(got[0]) || is_poison(got[1]) ? " (poison)" : "", want, fabs(got[0] - want), fabs(got[1] - want), tol,
         bad ? "FAIL" : "ok");
  return bad;
}

START_TEST(all_variants) {
  const size_t n = kSizes[_i];
  test_rng rng;
  rng_seed(&rng, test_seed() ^ (n * 0xD1B54A32D192ED03ull));
  float *x = malloc((n + 1) * sizeof(float)), *y = malloc((n + 1) * sizeof(float));
  float *back = malloc((n + 1) * sizeof(float));
  ck_assert(x && y && back);
  size_t work_bytes = dot_work_bytes(n);
  void *work;
  CUDA_OK(cudaMalloc(&work, work_bytes));
  guarded_buf dres = gbuf_alloc(1, 0);
  int failures = 0;
  for (int kind = 0; kind < NKINDS; kind++) {
    fill_input(x, n, (input_kind)kind, &rng);
    fill_input(y, n, (input_kind)kind, &rng);
    double want = 0.0, abs_sum = 0.0;
    for (size_t i = 0; i < n; i++) {
      double p = (double)x[i] * y[i]; /* exact: 24 + 24 bits fit in 53 */
      want += p;
      abs_sum += fabs(p);
    }
    for (int o = 0; o < NOFFSETS; o++) {
      if (!offsets_wanted(n, o)) continue;
      guarded_buf dx = gbuf_alloc(n, kOffsets[o][0]), dy = gbuf_alloc(n, kOffsets[o][1]);
      gbuf_upload(&dx, x);
      gbuf_upload(&dy, y);
      CUDA_OK(cudaDeviceSynchronize()); /* the uploads may still be in flight; g_stream does not wait for them */
      for (int v = 0; v < NVARIANTS; v++)
        failures += check_variant(&dot_variants[v], dx.ptr, dy.ptr, n, kOffsets[o], (input_kind)kind, work, work_bytes,
                                  &dres, want, abs_sum);
      gbuf_download(&dx, back); /* also checks nothing was written around x, y */
      ck_assert_msg(n == 0 || memcmp(back, x, n * sizeof(float)) == 0, "n=%zu: a variant modified x", n);
      gbuf_download(&dy, back);
      ck_assert_msg(n == 0 || memcmp(back, y, n * sizeof(float)) == 0, "n=%zu: a variant modified y", n);
      gbuf_free(&dx);
      gbuf_free(&dy);
    }
  }
  gbuf_free(&dres);
  CUDA_OK(cudaFree(work));
  free(x);
  free(y);
  free(back);
  ck_assert_msg(failures == 0, "n=%zu: %d failed runs (FAIL lines above)", n, failures);
}
END_TEST

/* Bad arguments are reported, never launched; n == 0 accepts NULL inputs and workspace. */
START_TEST(rejects_bad_arguments) {
  float *d;
  void *work;
  CUDA_OK(cudaMalloc((void **)&d, 64 * sizeof(float)));
  CUDA_OK(cudaMalloc(&work, dot_work_bytes(8)));
  const float *odd = (const float *)((const char *)d + 2);
  for (int v = 0; v < NVARIANTS; v++) {
    dot_fn fn = dot_variants[v].fn;
    const char *name = dot_variants[v].name;
    ck_assert_msg(fn(d, d, 8, NULL, work, g_stream) == cudaErrorInvalidValue, "%s: NULL result", name);
    ck_assert_msg(fn(NULL, d, 8, d + 32, work, g_stream) == cudaErrorInvalidValue, "%s: NULL x", name);
    ck_assert_msg(fn(d, NULL, 8, d + 32, work, g_stream) == cudaErrorInvalidValue, "%s: NULL y", name);
    ck_assert_msg(fn(d, d, 8, d + 32, NULL, g_stream) == cudaErrorInvalidValue, "%s: NULL workspace", name);
    ck_assert_msg(fn(d, odd, 8, d + 32, work, g_stream) == cudaErrorMisalignedAddress, "%s: misaligned y", name);
    CUDA_OK(cudaMemset(d + 32, 0xFF, sizeof(float)));
    CUDA_OK(cudaDeviceSynchronize());
    ck_assert_msg(fn(NULL, NULL, 0, d + 32, NULL, g_stream) == cudaSuccess, "%s: n == 0", name);
    CUDA_OK(cudaStreamSynchronize(g_stream));
    float got;
    CUDA_OK(cudaMemcpy(&got, d + 32, sizeof got, cudaMemcpyDeviceToHost));
    ck_assert_msg(got == 0.0f && !signbit(got), "%s: n == 0 gave %g, not 0", name, got);
  }
  CUDA_OK(cudaFree(work));
  CUDA_OK(cudaFree(d));
}
END_TEST

int main(void) {
  require_gpu("dot_test");
  test_seed();
  gpu_test_stream("dot_test", &g_stream, &g_sms);
  Suite *s = suite_create("dot");
  TCase *dot = tcase_create("dot");
  tcase_add_loop_test(dot, all_variants, 0, NSIZES);
  suite_add_tcase(s, dot);
  TCase *args = tcase_create("arguments");
  tcase_add_test(args, rejects_bad_arguments);
  suite_add_tcase(s, args);
  int status = run_gpu_suite(s);
  /* Outside any test: CUDA_OK's ck_assert cannot be used here. */
  cudaError_t err = cudaStreamDestroy(g_stream);
  if (err != cudaSuccess) {
    fprintf(stderr, "FAIL dot_test: cudaStreamDestroy: %s (%s)\n", cudaGetErrorName(err), cudaGetErrorString(err));
    return EXIT_FAILURE;
  }
  return status;
}
