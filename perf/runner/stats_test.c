/* CPU tests of perf/runner/stats on data whose statistics are known by hand. */
#include <check.h>
#include <math.h>
#include <stdlib.h>

#include "perf/runner/stats.h"
#include "tests/support/check_run.h"

START_TEST(summary_of_known_odd_set) {
  /* 2 4 4 4 5 5 7 9 shuffled, plus 6: n = 9, sum 46 */
  const double x[] = {9, 4, 2, 5, 7, 4, 4, 5, 6};
  stats_summary s;
  ck_assert_int_eq(stats_summarize(x, 9, &s), 0);
  ck_assert_uint_eq(s.n, 9);
  ck_assert_double_eq(s.median, 5);
  ck_assert_double_eq_tol(s.mean, 46.0 / 9, 1e-12);
  /* sum of squared deviations: sum x^2 - n mean^2 = 268 - 2116/9 = 296/9; / (n-1) */
  ck_assert_double_eq_tol(s.stddev, sqrt(296.0 / 9 / 8), 1e-12);
  ck_assert_double_eq_tol(s.cv, s.stddev / s.mean, 1e-15);
  ck_assert_double_eq(s.min, 2);
  ck_assert_double_eq(s.max, 9);
  ck_assert_double_eq(x[0], 9); /* input untouched */
}
END_TEST

START_TEST(median_of_even_count_averages_middle_pair) {
  const double x[] = {4, 1, 3, 2};
  ck_assert_double_eq(stats_median(x, 4), 2.5);
  const double y[] = {7};
  ck_assert_double_eq(stats_median(y, 1), 7);
}
END_TEST

START_TEST(single_sample_has_zero_spread) {
  const double x[] = {3.5};
  stats_summary s;
  ck_assert_int_eq(stats_summarize(x, 1, &s), 0);
  ck_assert_double_eq(s.stddev, 0);
  ck_assert_double_eq(s.cv, 0);
  ck_assert_double_eq(s.min, 3.5);
  ck_assert_double_eq(s.max, 3.5);
}
END_TEST

START_TEST(empty_input_is_an_error) {
  stats_summary s;
  ck_assert_int_eq(stats_summarize(NULL, 0, &s), -1);
  ck_assert_double_eq(s.mean, 0);
  ck_assert_double_eq(stats_median(NULL, 0), 0);
}
END_TEST

START_TEST(running_matches_two_pass) {
  /* Large offset: the naive sum-of-squares formula would lose every digit. */
  const double x[] = {1e9 + 4, 1e9 + 7, 1e9 + 13, 1e9 + 16};
  stats_running r = {0};
  for (int i = 0; i < 4; i++) stats_running_push(&r, x[i]);
  ck_assert_double_eq_tol(r.mean, 1e9 + 10, 1e-6);
  ck_assert_double_eq_tol(stats_running_stddev(&r), sqrt(90.0 / 3), 1e-9);
  ck_assert_double_eq_tol(r.sum, 4e9 + 40, 1e-3);
  stats_summary s;
  stats_summarize(x, 4, &s);
  ck_assert_double_eq_tol(s.stddev, stats_running_stddev(&r), 1e-9);
}
END_TEST

START_TEST(relative_standard_error) {
  stats_running r = {0};
  ck_assert(isinf(stats_running_rel_stderr(&r)));
  stats_running_push(&r, 10);
  ck_assert(isinf(stats_running_rel_stderr(&r))); /* one sample: unknown */
  stats_running_push(&r, 12);
  stats_running_push(&r, 8);
  stats_running_push(&r, 10);
  /* mean 10, sample stddev sqrt(8/3), n 4 */
  ck_assert_double_eq_tol(stats_running_rel_stderr(&r), sqrt(8.0 / 3) / (10 * 2), 1e-12);
  stats_running same = {0};
  for (int i = 0; i < 5; i++) stats_running_push(&same, 42);
  ck_assert_double_eq(stats_running_rel_stderr(&same), 0);
}
END_TEST

int main(void) {
  Suite *s = suite_create("stats");
  TCase *tc = tcase_create("stats");
  tcase_add_test(tc, summary_of_known_odd_set);
  tcase_add_test(tc, median_of_even_count_averages_middle_pair);
  tcase_add_test(tc, single_sample_has_zero_spread);
  tcase_add_test(tc, empty_input_is_an_error);
  tcase_add_test(tc, running_matches_two_pass);
  tcase_add_test(tc, relative_standard_error);
  suite_add_tcase(s, tc);
  return run_suite(s);
}
