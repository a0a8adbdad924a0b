/* Correctness of kernels/reduce against an fp64 CPU reference.
 *
 * Every variant, every size below, three kinds of fresh random input, x at
 * each offset 0..3 floats from 16-byte alignment, each variant run twice on
 * the same workspace (poisoned before its first run, so nothing may rely on
 * it being zero or left over). The output sits in a guarded buffer poisoned
 * before every run; the input must come back unchanged.
 *
 * Inputs, and what each one catches:
 *  - integer: nonzero integers in [-127, 127]. Every partial sum stays far
 *    below 2^24 (Bernstein: the largest, over 1.3e8 terms, has a standard
 *    deviation < 2^20; passing 2^24 anywhere has probability < 1e-50), so every
 *    addition is exact in any order and the result must equal the fp64 reference
 *    exactly (tolerance 0): one dropped or doubled element, at any size,
 *    changes the sum by at least 1.
 *  - positive: uniform [0, 1). No cancellation; checks the rounding bound
 *    below, and on its own catches one dropped element of typical size (0.5)
 *    while depth * n < 2^24 (n up to ~65537 for every variant here).
 *  - mixed: uniform [-1, 1). Cancelling data, the rounding bound relative to
 *    sum |x_i|.
 * Tolerance for the float inputs: sum_error_bound(depth, sum |x_i|), with the
 * depth (most roundings any element goes through) derived per variant from its
 * summation order in kernels/reduce/reduce_variants.c, plus the fp64
 * reference's own error, n 2^-53 sum |x_i|.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/reduce/reduce.h"
#include "kernels/reduce/reduce_variants.h"
#include "tests/support/gpu_check.h"
#include "tests/support/host_check.h"

/* Not multiples of the block (256) or the vector width (4); primes among them;
 * 16777259 (> 2^24) takes 4 passes in v0..v2 and 3 in v3..v5; 512^3 + 1 takes
 * 4 in all of them and ends with a pass over 2 block totals. */
static const size_t kSizes[] = {0,   1,    3,    4,    5,     31,      255,      256,
                                257, 1023, 1025, 4097, 65537, 1000003, 16777259, 134217729};
#define NSIZES (int)(sizeof kSizes / sizeof kSizes[0])

static size_t g_sms; /* SMs of the device: a grid sized to fill it has at least this many blocks */
static cudaStream_t g_stream;

/* The variants and their accuracy model: kernels/reduce/reduce_variants.c. */
#define NVARIANTS (int)reduce_nvariants

typedef enum { INTEGER, POSITIVE, MIXED, NKINDS } input_kind;
static const char *const kKindNames[] = {"integer", "positive", "mixed"};

static void fill_input(float *x, size_t n, input_kind kind, test_rng *rng) {
  if (kind == INTEGER) fill_int_uniform(x, n, 127, rng);
  if (kind == POSITIVE) fill_uniform(x, n, 0.0f, 1.0f, rng);
  if (kind == MIXED) fill_uniform(x, n, -1.0f, 1.0f, rng);
}

/* Runs one variant twice on the same (poisoned) workspace; returns the number
 * of failed runs after printing one line for both. */
static int check_variant(const reduce_variant *v, const float *dx, size_t n, size_t offset, input_kind kind, void *work,
                         size_t work_bytes, guarded_buf *dsum, double want, double abs_sum) {
  double tol = 0.0;
  if (kind != INTEGER) tol = sum_error_bound(v->depth(n, g_sms), abs_sum) + (double)n * 0x1p-53 * abs_sum;
  float got[2];
  int bad = 0;
  CUDA_OK(cudaMemsetAsync(work, 0xFF, work_bytes, g_stream));
  for (int run = 0; run < 2; run++) {
    gbuf_poison(dsum, g_stream); /* output and guards */
    CUDA_OK(v->fn(dx, n, dsum->ptr, work, g_stream));
    CUDA_OK(cudaStreamSynchronize(g_stream));
    gbuf_download(dsum, &got[run]);
    bad += compare_f32(&got[run], &want, NULL, 1, (tolerance){.abs = tol}).bad != 0;
  }
  printf("%-22s n=%-10zu %-8s off=%zu got=%.9g,%.9g%s want=%.17g err=%.3g,%.3g tol=%.3g %s\n", v->name, n,
         kKindNames[kind], offset, got[0], got[1], is_poison(got[0]) || is_poison(got[1]) ? " (poison)" : "", want,
         fabs(got[0] - want), fabs(got[1] - want), tol, bad ? "FAIL" : "ok");
  return bad;
}

START_TEST(all_variants) {
  const size_t n = kSizes[_i];
  test_rng rng;
  rng_seed(&rng, test_seed() ^ (n * 0x9E3779B97F4A7C15ull));
  float *x = malloc((n + 1) * sizeof(float)), *back = malloc((n + 1) * sizeof(float));
  ck_assert(x && back);
  size_t work_bytes = reduce_work_bytes(n);
  void *work;
  CUDA_OK(cudaMalloc(&work, work_bytes));
  guarded_buf dsum = gbuf_alloc(1, 0);
  int failures = 0;
  for (int kind = 0; kind < NKINDS; kind++) {
    fill_input(x, n, (input_kind)kind, &rng);
    double want = 0.0, abs_sum = 0.0;
    for (size_t i = 0; i < n; i++) {
      want += x[i];
      abs_sum += fabs(x[i]);
    }
    for (size_t offset = 0; offset < 4; offset++) {
      guarded_buf dx = gbuf_alloc(n, offset);
      gbuf_upload(&dx, x);
      CUDA_OK(cudaDeviceSynchronize()); /* the upload may still be in flight; g_stream does not wait for it */
      for (int v = 0; v < NVARIANTS; v++)
        failures += check_variant(&reduce_variants[v], dx.ptr, n, offset, (input_kind)kind, work, work_bytes, &dsum,
                                  want, abs_sum);
      gbuf_download(&dx, back); /* also checks nothing was written around x */
      ck_assert_msg(n == 0 || memcmp(back, x, n * sizeof(float)) == 0, "n=%zu: a variant modified its input", n);
      gbuf_free(&dx);
    }
  }
  gbuf_free(&dsum);
  CUDA_OK(cudaFree(work));
  free(x);
  free(back);
  ck_assert_msg(failures == 0, "n=%zu: %d failed runs (FAIL lines above)", n, failures);
}
END_TEST

/* Bad arguments are reported, never launched; n == 0 accepts NULL x and workspace. */
START_TEST(rejects_bad_arguments) {
  float *d;
  size_t work_bytes = reduce_work_bytes(8);
  ck_assert(work_bytes != (size_t)-1);
  void *work;
  CUDA_OK(cudaMalloc((void **)&d, 64 * sizeof(float)));
  CUDA_OK(cudaMalloc(&work, work_bytes));
  const float *odd = (const float *)((const char *)d + 2);
  for (int v = 0; v < NVARIANTS; v++) {
    reduce_fn fn = reduce_variants[v].fn;
    const char *name = reduce_variants[v].name;
    ck_assert_msg(fn(d, 8, NULL, work, g_stream) == cudaErrorInvalidValue, "%s: NULL d_sum", name);
    ck_assert_msg(fn(NULL, 8, d + 32, work, g_stream) == cudaErrorInvalidValue, "%s: NULL x", name);
    ck_assert_msg(fn(d, 8, d + 32, NULL, g_stream) == cudaErrorInvalidValue, "%s: NULL workspace", name);
    ck_assert_msg(fn(odd, 8, d + 32, work, g_stream) == cudaErrorMisalignedAddress, "%s: misaligned x", name);
    CUDA_OK(cudaMemset(d + 32, 0xFF, sizeof(float)));
    CUDA_OK(cudaDeviceSynchronize());
    ck_assert_msg(fn(NULL, 0, d + 32, NULL, g_stream) == cudaSuccess, "%s: n == 0", name);
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
  require_gpu("reduce_test");
  test_seed();
  gpu_test_stream("reduce_test", &g_stream, &g_sms);
  Suite *s = suite_create("reduce");
  TCase *sum = tcase_create("sum");
  tcase_add_loop_test(sum, all_variants, 0, NSIZES);
  suite_add_tcase(s, sum);
  TCase *args = tcase_create("arguments");
  tcase_add_test(args, rejects_bad_arguments);
  suite_add_tcase(s, args);
  int status = run_gpu_suite(s);
  /* Outside any test: CUDA_OK's ck_assert cannot be used here. */
  cudaError_t err = cudaStreamDestroy(g_stream);
  if (err != cudaSuccess) {
    fprintf(stderr, "FAIL reduce_test: cudaStreamDestroy: %s (%s)\n", cudaGetErrorName(err), cudaGetErrorString(err));
    return EXIT_FAILURE;
  }
  return status;
}
