/* What each measurement takes of the flags' configuration: a context's share, the first
 * context's quick measure (no warm-up: it is replaced) and the probes (no warm-up: taken alike in
 * every run). */
#include <check.h>
#include <math.h>

#include "perf/runner/measure_cfg.h"
#include "perf/runner/results.h"
#include "tests/support/check_run.h"

/* --benchmark_min_samples=10 --benchmark_min_time=0.4s --max_noise=1% --timeout=8 and 0.2 s of
 * warm-up, no sample cap. */
static const measure_cfg kFlags = {10, 0.4, 0.01, 8.0, 0.2, 0};

START_TEST(a_context_takes_its_share_and_keeps_the_warm_up) {
  measure_cfg each = measure_cfg_context(&kFlags, 4);
  ck_assert_int_eq(each.min_samples, 10);
  ck_assert_double_eq_tol(each.min_time_s, 0.1, 1e-12);
  ck_assert_double_eq_tol(each.timeout_s, 2.0, 1e-12);
  ck_assert(isinf(each.max_noise));
  ck_assert_int_eq(each.max_samples, CONTEXTS_MAX_SAMPLES);
  ck_assert_double_eq(each.warmup_s, 0.2); /* its measurement is kept */
}
END_TEST

START_TEST(the_quick_measure_has_no_warm_up) {
  measure_cfg quick = measure_cfg_quick(&kFlags, 16);
  ck_assert_double_eq(quick.warmup_s, 0);
  ck_assert_double_eq_tol(quick.min_time_s, 0.4 / 16, 1e-12);
  ck_assert_double_eq_tol(quick.timeout_s, 0.5, 1e-12);
  ck_assert_int_eq(quick.max_samples, CONTEXTS_MAX_SAMPLES);
}
END_TEST

START_TEST(the_copy_probe_has_no_warm_up_and_20_samples_or_more) {
  measure_cfg probe = measure_cfg_copy_probe(&kFlags);
  ck_assert_double_eq(probe.warmup_s, 0);
  ck_assert_int_eq(probe.min_samples, 20);
  ck_assert_double_eq_tol(probe.min_time_s, 0.4, 1e-12); /* otherwise as the flags say */
  measure_cfg many = kFlags;
  many.min_samples = 50;
  ck_assert_int_eq(measure_cfg_copy_probe(&many).min_samples, 50);
}
END_TEST

START_TEST(the_launch_probe_takes_nothing_of_the_flags) {
  measure_cfg probe = measure_cfg_launch_probe();
  ck_assert_int_eq(probe.min_samples, 10);
  ck_assert_double_eq(probe.min_time_s, 0);
  ck_assert_double_eq(probe.timeout_s, 1.0);
  ck_assert(isinf(probe.max_noise));
  ck_assert_int_eq(probe.max_samples, CONTEXTS_MAX_SAMPLES);
  ck_assert_double_eq(probe.warmup_s, 0);
}
END_TEST

int main(void) {
  Suite *s = suite_create("measure_cfg");
  TCase *tc = tcase_create("measure_cfg");
  tcase_add_test(tc, a_context_takes_its_share_and_keeps_the_warm_up);
  tcase_add_test(tc, the_quick_measure_has_no_warm_up);
  tcase_add_test(tc, the_copy_probe_has_no_warm_up_and_20_samples_or_more);
  tcase_add_test(tc, the_launch_probe_takes_nothing_of_the_flags);
  suite_add_tcase(s, tc);
  return run_suite(s);
}
