/* CPU tests of the host-only check helpers (tests/support/host_check); the element types' ones are in
 * host_check_types_test.c. */
#define _POSIX_C_SOURCE 200809L
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tests/support/host_check.h"
#include "tests/support/check_run.h"

START_TEST(rng_is_reproducible_and_seed_dependent) {
  test_rng a, b, c;
  rng_seed(&a, 42);
  rng_seed(&b, 42);
  rng_seed(&c, 43);
  int differs = 0;
  for (int i = 0; i < 100; i++) {
    uint64_t x = rng_next(&a), y = rng_next(&b), z = rng_next(&c);
    ck_assert_uint_eq(x, y);
    differs |= (x != z);
  }
  ck_assert(differs);
}
END_TEST

/* Large fills are split into chunks with their own generators: the result
 * must still be fixed by the seed, and no chunk may repeat another. */
START_TEST(large_fill_is_fixed_by_the_seed) {
  enum { N = (3 << 20) + 5 };
  float *x = malloc(N * sizeof *x), *y = malloc(N * sizeof *y);
  ck_assert(x && y);
  test_rng r1, r2;
  rng_seed(&r1, 42);
  rng_seed(&r2, 42);
  fill_uniform(x, N, -1.0f, 1.0f, &r1);
  fill_uniform(y, N, -1.0f, 1.0f, &r2);
  ck_assert(memcmp(x, y, N * sizeof *x) == 0);
  ck_assert(memcmp(x, x + (1 << 20), 1000 * sizeof *x) != 0);
  ck_assert(memcmp(x + (1 << 20), x + (2 << 20), 1000 * sizeof *x) != 0);
  double sum = 0;
  long out_of_range = 0;
  for (int i = 0; i < N; i++) {
    out_of_range += !(x[i] >= -1.0f && x[i] <= 1.0f);
    sum += x[i];
  }
  ck_assert_int_eq(out_of_range, 0);
  ck_assert_double_lt(fabs(sum / N), 0.01);
  /* The next fill from the same generator differs. */
  fill_uniform(y, N, -1.0f, 1.0f, &r1);
  ck_assert(memcmp(x, y, 1000 * sizeof *x) != 0);
  free(x);
  free(y);
}
END_TEST

START_TEST(uniform_stays_in_range_and_spreads) {
  test_rng r;
  rng_seed(&r, 7);
  enum { N = 100000 };
  static float x[N];
  fill_uniform(x, N, -1.0f, 1.0f, &r);
  double sum = 0;
  int below = 0;
  for (int i = 0; i < N; i++) {
    ck_assert(x[i] >= -1.0f && x[i] <= 1.0f);
    sum += x[i];
    below += x[i] < 0;
  }
  ck_assert_double_lt(fabs(sum / N), 0.02);
  ck_assert_int_gt(below, N * 45 / 100);
  ck_assert_int_lt(below, N * 55 / 100);
}
END_TEST

START_TEST(seed_comes_from_environment) {
  setenv("TEST_SEED", "12345", 1);
  ck_assert_uint_eq(test_seed(), 12345);
}
END_TEST

START_TEST(poison_is_a_nan_no_kernel_writes) {
  float x[3] = {1.0f, 0.0f, -2.0f};
  fill_poison(x, 2);
  ck_assert(is_poison(x[0]) && is_poison(x[1]));
  ck_assert(isnan(x[0]));
  ck_assert(!is_poison(x[2]));
  ck_assert(!is_poison(0.0f));
  ck_assert(!is_poison(NAN) || is_poison(poison_value()));
}
END_TEST

START_TEST(compare_accepts_within_tolerance) {
  float got[3] = {1.0f, 2.0f, 0.0f};
  double want[3] = {1.0 + 1e-8, 2.0, 0.0};
  compare_report r = compare_f32(got, want, NULL, 3, (tolerance){.rel = 1e-7});
  ck_assert_uint_eq(r.bad, 0);
  ck_assert_uint_eq(r.first_bad, 3);
  ck_assert_double_gt(r.max_abs_err, 0.0);
}
END_TEST

START_TEST(compare_rejects_error_nan_inf_and_poison) {
  float got[4] = {1.0f, 1.1f, NAN, INFINITY};
  double want[4] = {1.0, 1.0, 1.0, 1.0};
  compare_report r = compare_f32(got, want, NULL, 4, (tolerance){.rel = 1e-3});
  ck_assert_uint_eq(r.bad, 3);
  ck_assert_uint_eq(r.first_bad, 1);
  ck_assert_float_eq(r.first_got, 1.1f);

  float unwritten[2] = {1.0f, 0.0f};
  fill_poison(unwritten + 1, 1);
  double w2[2] = {1.0, 0.0};
  r = compare_f32(unwritten, w2, NULL, 2, (tolerance){.abs = 1.0, .rel = 1e-3});
  ck_assert_uint_eq(r.bad, 1);
  char line[256];
  format_report(&r, line, sizeof line);
  ck_assert_ptr_nonnull(strstr(line, "never written"));
}
END_TEST

START_TEST(compare_uses_scale_for_cancelling_results) {
  /* want = 1e-6 from terms of size 1: an error of 1e-8 is fine relative to the terms. */
  float got[1] = {1.001e-6f};
  double want[1] = {1e-6};
  double scale[1] = {2.0};
  ck_assert_uint_eq(compare_f32(got, want, NULL, 1, (tolerance){.rel = 1e-7}).bad, 1);
  ck_assert_uint_eq(compare_f32(got, want, scale, 1, (tolerance){.rel = 1e-7}).bad, 1); /* scale needs the flag */
  ck_assert_uint_eq(compare_f32(got, want, scale, 1, (tolerance){.rel = 1e-7, .rel_to_scale = 1}).bad, 0);
}
END_TEST

START_TEST(empty_comparison_passes) {
  compare_report r = compare_f32(NULL, NULL, NULL, 0, TOL_EXACT);
  ck_assert_uint_eq(r.bad, 0);
  ck_assert_uint_eq(r.n, 0);
}
END_TEST

START_TEST(int_uniform_is_nonzero_integral_and_covers_range) {
  test_rng r;
  rng_seed(&r, 11);
  enum { N = 20000, M = 15 };
  static float x[N];
  int seen[2 * M + 1] = {0};
  fill_int_uniform(x, N, M, &r);
  for (int i = 0; i < N; i++) {
    ck_assert(x[i] == floorf(x[i]));
    ck_assert(x[i] != 0.0f && fabsf(x[i]) <= M);
    seen[(int)x[i] + M]++;
  }
  for (int k = -M; k <= M; k++)
    if (k != 0) ck_assert_int_gt(seen[k + M], N / (2 * M) / 2); /* each value about N/30 times */
}
END_TEST

/* The bound holds for a float sum done the worst way (sequential, depth n-1),
 * is exact (0) for depth 0, grows with depth, and is no bound at depth 2^24. */
START_TEST(sum_error_bound_covers_sequential_float_sum) {
  test_rng r;
  rng_seed(&r, 5);
  enum { N = 1 << 20 };
  static float x[N];
  fill_uniform(x, N, 0.0f, 1.0f, &r);
  float s = 0.0f;
  double exact = 0.0, abs_sum = 0.0;
  for (int i = 0; i < N; i++) {
    s += x[i];
    exact += x[i];
    abs_sum += fabs(x[i]);
  }
  double err = fabs(s - exact);
  ck_assert_double_gt(err, 0.0);
  ck_assert_double_le(err, sum_error_bound(N - 1, abs_sum));
  ck_assert_double_eq(sum_error_bound(0, abs_sum), 0.0);
  ck_assert_double_lt(sum_error_bound(8, 1.0), sum_error_bound(9, 1.0));
  ck_assert_double_eq_tol(sum_error_bound(8, 1.0), 8 * FLOAT_UNIT_ROUNDOFF, 1e-12); /* gamma(d) ~ d u */
  ck_assert(isinf(sum_error_bound((size_t)1 << 24, 1.0)));
}
END_TEST

/* A pairwise (tree) float sum of 2^k terms has depth k: the bound holds there too,
 * and is far tighter than the sequential one. */
START_TEST(sum_error_bound_covers_tree_sum) {
  test_rng r;
  rng_seed(&r, 6);
  enum { K = 16, N = 1 << K };
  static float x[N];
  fill_uniform(x, N, -1.0f, 1.0f, &r);
  double exact = 0.0, abs_sum = 0.0;
  for (int i = 0; i < N; i++) {
    exact += x[i];
    abs_sum += fabs(x[i]);
  }
  for (int width = N / 2; width > 0; width /= 2)
    for (int i = 0; i < width; i++) x[i] += x[i + width];
  ck_assert_double_le(fabs(x[0] - exact), sum_error_bound(K, abs_sum));
}
END_TEST

int main(void) {
  Suite *s = suite_create("host_check");
  TCase *tc = tcase_create("helpers");
  /* Check's default 4 s is too short for the 3 Mi-element fills on a loaded 2-core CI machine. */
  tcase_set_timeout(tc, 30);
  tcase_add_test(tc, rng_is_reproducible_and_seed_dependent);
  tcase_add_test(tc, uniform_stays_in_range_and_spreads);
  tcase_add_test(tc, large_fill_is_fixed_by_the_seed);
  tcase_add_test(tc, seed_comes_from_environment);
  tcase_add_test(tc, poison_is_a_nan_no_kernel_writes);
  tcase_add_test(tc, compare_accepts_within_tolerance);
  tcase_add_test(tc, compare_rejects_error_nan_inf_and_poison);
  tcase_add_test(tc, compare_uses_scale_for_cancelling_results);
  tcase_add_test(tc, empty_comparison_passes);
  tcase_add_test(tc, int_uniform_is_nonzero_integral_and_covers_range);
  tcase_add_test(tc, sum_error_bound_covers_sequential_float_sum);
  tcase_add_test(tc, sum_error_bound_covers_tree_sum);
  suite_add_tcase(s, tc);
  return run_suite(s);
}
