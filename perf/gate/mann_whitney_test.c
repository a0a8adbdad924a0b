/* The U test against values worked out by hand. */
#include <check.h>
#include <math.h>
#include <stdlib.h>

#include "perf/gate/mann_whitney.h"
#include "tests/support/check_run.h"

static const double lo[10] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
static const double hi[10] = {11, 12, 13, 14, 15, 16, 17, 18, 19, 20};

START_TEST(separated_samples) {
  /* U = 100 of 100 pairs; mean 50, var = 10*10*21/12 = 175; z = 49.5/sqrt(175) = 3.7418 */
  ck_assert_double_eq(mann_whitney_u(hi, 10, lo, 10), 100.0);
  ck_assert_double_eq_tol(mann_whitney_p_greater(hi, 10, lo, 10), 0.5 * erfc(3.741774 / sqrt(2.0)), 1e-6);
  ck_assert_double_lt(mann_whitney_p_greater(hi, 10, lo, 10), 1e-4);
  ck_assert_double_gt(mann_whitney_p_greater(lo, 10, hi, 10), 0.9999);
}
END_TEST

START_TEST(identical_samples_are_not_significant) {
  ck_assert_double_eq(mann_whitney_u(lo, 10, lo, 10), 50.0);
  ck_assert_double_gt(mann_whitney_p_greater(lo, 10, lo, 10), 0.4);
  const double same[4] = {3, 3, 3, 3};
  ck_assert_double_eq(mann_whitney_p_greater(same, 4, same, 4), 1.0);
}
END_TEST

START_TEST(ties_count_half) {
  const double x[2] = {1, 2}, y[2] = {2, 3};
  /* pairs: 1>2 no, 1>3 no, 2=2 half, 2>3 no */
  ck_assert_double_eq(mann_whitney_u(x, 2, y, 2), 0.5);
}
END_TEST

START_TEST(shift_of_a_few_percent_is_detected) {
  double base[30], slow[30];
  for (int i = 0; i < 30; i++) {
    base[i] = 100.0 + (i % 7) * 0.1; /* 0.6% spread */
    slow[i] = base[i] * 1.03;
  }
  ck_assert_double_lt(mann_whitney_p_greater(slow, 30, base, 30), 1e-6);
  ck_assert_double_gt(mann_whitney_p_greater(base, 30, slow, 30), 0.99);
}
END_TEST

START_TEST(empty_sample) { ck_assert_double_eq(mann_whitney_p_greater(lo, 10, NULL, 0), 1.0); }
END_TEST

int main(void) {
  Suite *s = suite_create("mann_whitney");
  TCase *tc = tcase_create("u_test");
  tcase_add_test(tc, separated_samples);
  tcase_add_test(tc, identical_samples_are_not_significant);
  tcase_add_test(tc, ties_count_half);
  tcase_add_test(tc, shift_of_a_few_percent_is_detected);
  tcase_add_test(tc, empty_sample);
  suite_add_tcase(s, tc);
  return run_suite(s);
}
