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
  ck_assert_int_eq(verify_f32("half", x, N, ref_half, NULL, TOL_EXACT, err, sizeof err), 0);
  ck_assert_int_eq(verify_f32("half", x, N, ref_half, NULL, (tolerance){.rel_to_scale = 1}, err, sizeof err), 0);
  ck_assert_int_eq(verify_f32("empty", NULL, 0, ref_half, NULL, TOL_EXACT, err, sizeof err), 0);
  free(x);
}
END_TEST

START_TEST(first_bad_index_is_global_across_chunks) {
  float *x = exact();
  size_t bad1 = (1 << 20) + 7, bad2 = (1 << 21) + 3;
  x[bad1] += 1.0f;
  fill_poison(&x[bad2], 1); /* never written */
  char err[512] = "";
  ck_assert_int_eq(verify_f32("half", x, N, ref_half, NULL, (tolerance){.rel = 1e-7}, err, sizeof err), -1);
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
  ck_assert_int_eq(verify_f32("half", x, N, ref_half, NULL, (tolerance){.rel = 1e-7}, err, sizeof err), -1);
  ck_assert_msg(strstr(err, "bad=3") && strstr(err, "first_bad=[5]"), "%s", err);
  free(x);
}
END_TEST

START_TEST(scale_widens_the_tolerance) {
  float *x = exact();
  x[10] = 5.0f + 0.5f; /* want 5: error 0.5; scale 11 */
  char err[256] = "";
  ck_assert_int_eq(verify_f32("s", x, N, ref_half, NULL, (tolerance){.rel = 0.05}, err, sizeof err), -1);
  ck_assert_int_eq(verify_f32("s", x, N, ref_half, NULL, (tolerance){.rel = 0.05, .rel_to_scale = 1}, err, sizeof err),
                   0);
  free(x);
}
END_TEST

/* Reference of integer outputs: want[i] = i mod 1000. */
static void ref_mod(const void *ctx, size_t begin, size_t count, double *want, double *scale) {
  (void)ctx;
  (void)scale;
  for (size_t i = 0; i < count; i++) want[i] = (double)((begin + i) % 1000);
}

/* Integer results are checked exactly, across chunks and threads: one element off by one in a late
 * chunk fails at its index, and an element left at the poison is named. */
START_TEST(integer_output_is_checked_exactly) {
  int32_t *x = malloc(N * sizeof *x);
  ck_assert_ptr_nonnull(x);
  for (size_t i = 0; i < N; i++) x[i] = (int32_t)(i % 1000);
  char err[512] = "";
  ck_assert_int_eq(verify_elems("mod", ELEM_I32, x, N, ref_mod, NULL, TOL_EXACT, err, sizeof err), 0);
  x[(1 << 21) + 100] += 1;
  ck_assert_int_eq(verify_elems("mod", ELEM_I32, x, N, ref_mod, NULL, TOL_EXACT, err, sizeof err), -1);
  ck_assert_msg(strstr(err, "bad=1 ") && strstr(err, "first_bad=[2097252] got=253 want=252"), "%s", err);
  poison_elems(ELEM_I32, &x[70000], 1);
  ck_assert_int_eq(verify_elems("mod", ELEM_I32, x, N, ref_mod, NULL, TOL_EXACT, err, sizeof err), -1);
  ck_assert_msg(strstr(err, "bad=2 ") && strstr(err, "first_bad=[70000] got=-1 (all bits set"), "%s", err);
  free(x);
}
END_TEST

/* Reference of byte outputs: want[i] = 7 i mod 256. */
static void ref_bytes(const void *ctx, size_t begin, size_t count, double *want, double *scale) {
  (void)ctx;
  (void)scale;
  for (size_t i = 0; i < count; i++) want[i] = (double)((begin + i) * 7 % 256);
}

/* Bytes: each chunk starts at its own byte (a stride of another type's size would compare the wrong
 * ones), and one flipped bit in a later chunk fails at its index. */
START_TEST(byte_output_is_checked_at_its_own_stride) {
  enum { NB = (1 << 17) + 3 };
  uint8_t *b = malloc(NB);
  ck_assert_ptr_nonnull(b);
  for (size_t i = 0; i < NB; i++) b[i] = (uint8_t)(i * 7 % 256);
  char err[512] = "";
  ck_assert_int_eq(verify_elems("bytes", ELEM_U8, b, NB, ref_bytes, NULL, TOL_EXACT, err, sizeof err), 0);
  b[(1 << 16) + 5] ^= 0x10;
  ck_assert_int_eq(verify_elems("bytes", ELEM_U8, b, NB, ref_bytes, NULL, TOL_EXACT, err, sizeof err), -1);
  ck_assert_msg(strstr(err, "bad=1 ") && strstr(err, "first_bad=[65541]"), "%s", err);
  free(b);
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
  tcase_add_test(tc, integer_output_is_checked_exactly);
  tcase_add_test(tc, byte_output_is_checked_at_its_own_stride);
  suite_add_tcase(s, tc);
  return run_suite(s);
}
