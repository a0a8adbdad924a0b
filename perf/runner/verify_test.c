/* CPU tests of the chunked self-check comparison (perf/runner/verify). */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "perf/runner/verify.h"
#include "tests/support/host_check.h"
#include "tests/support/check_run.h"

/* Reference: want[i] = i * 0.5, scale[i] = 2 |want[i]| + 1. */
static void ref_half(const void *ctx, size_t begin, size_t count, double *want, double *scale) {
  (void)ctx;
  for (size_t i = 0; i < count; i++) {
    want[i] = 0.5 * (double)(begin + i);
    if (scale) scale[i] = 2 * fabs(want[i]) + 1;
  }
}

/* Many chunks of the check (2^16 elements each), on several threads: chunk offsets are exercised. */
enum { N = (1 << 21) + 12345 };

static float *exact(void) {
  float *x = malloc(N * sizeof *x);
  ck_assert_ptr_nonnull(x);
  for (size_t i = 0; i < N; i++) x[i] = (float)(0.5 * (double)i);
  return x;
}

START_TEST(exact_output_passes) {
  float *x = exact();
  char err[256] = "";
  ck_assert_int_eq(verify_f32("half", x, N, ref_half, NULL, 0, 0.0, 0.0, err, sizeof err), 0);
  ck_assert_int_eq(verify_f32("half", x, N, ref_half, NULL, 1, 0.0, 0.0, err, sizeof err), 0);
  ck_assert_int_eq(verify_f32("empty", NULL, 0, ref_half, NULL, 0, 0.0, 0.0, err, sizeof err), 0);
  free(x);
}
END_TEST

START_TEST(first_bad_index_is_global_across_chunks) {
  float *x = exact();
  size_t bad1 = (1 << 20) + 7, bad2 = (1 << 21) + 3;
  x[bad1] += 1.0f;
  fill_poison(&x[bad2], 1); /* never written */
  char err[512] = "";
  ck_assert_int_eq(verify_f32("half", x, N, ref_half, NULL, 0, 1e-7, 0.0, err, sizeof err), -1);
  ck_assert_ptr_nonnull(strstr(err, "half: "));
  ck_assert_ptr_nonnull(strstr(err, "bad=2"));
  ck_assert_ptr_nonnull(strstr(err, "first_bad=[1048583]"));
  free(x);
}
END_TEST

/* Chunks are checked on several threads (thread t takes chunks t, t + T, ...): the first bad element
 * reported is the smallest index whichever thread found it. */
START_TEST(first_bad_is_the_smallest_index_over_threads) {
  float *x = exact();
  size_t bad[3] = {5, (1 << 20) + 9, (1 << 21) + 1};
  for (int i = 0; i < 3; i++) x[bad[i]] += 1.0f;
  char err[512] = "";
  ck_assert_int_eq(verify_f32("half", x, N, ref_half, NULL, 0, 1e-7, 0.0, err, sizeof err), -1);
  ck_assert_msg(strstr(err, "bad=3") && strstr(err, "first_bad=[5]"), "%s", err);
  free(x);
}
END_TEST

START_TEST(scale_widens_the_tolerance) {
  float *x = exact();
  x[10] = 5.0f + 0.5f; /* want 5: error 0.5; scale 11 */
  char err[256] = "";
  ck_assert_int_eq(verify_f32("s", x, N, ref_half, NULL, 0, 0.05, 0.0, err, sizeof err), -1);
  ck_assert_int_eq(verify_f32("s", x, N, ref_half, NULL, 1, 0.05, 0.0, err, sizeof err), 0);
  free(x);
}
END_TEST

int main(void) {
  Suite *s = suite_create("verify");
  TCase *tc = tcase_create("verify");
  tcase_set_timeout(tc, 30);
  tcase_add_test(tc, exact_output_passes);
  tcase_add_test(tc, first_bad_index_is_global_across_chunks);
  tcase_add_test(tc, first_bad_is_the_smallest_index_over_threads);
  tcase_add_test(tc, scale_widens_the_tolerance);
  suite_add_tcase(s, tc);
  return run_suite(s);
}
