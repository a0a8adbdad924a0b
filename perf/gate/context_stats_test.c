/* The t tail and the per-context test against closed forms, printed tables and hand-worked data. Reference
 * p-values marked "integrated" come from Simpson's rule on the t density (python, 2e5 panels, math.lgamma),
 * independent of the continued fraction under test. */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "perf/gate/context_stats.h"
#include "perf/gate/mann_whitney.h"
#include "tests/support/check_run.h"

#define PI 3.14159265358979323846
#define assert_rel(got, want, rel) ck_assert_double_eq_tol((got), (want), (rel)*fabs(want))

START_TEST(t_sf_closed_forms) {
  /* df = 1 is Cauchy: 0.5 - atan(t)/pi; df = 2: 0.5 - t / (2 sqrt(2 + t^2)). */
  const double ts[] = {-25, -4, -1.5, -0.3, 0, 0.7, 2, 5.5, 40};
  for (size_t i = 0; i < sizeof ts / sizeof *ts; i++) {
    double t = ts[i];
    assert_rel(student_t_sf(t, 1), 0.5 - atan(t) / PI, 1e-10);
    assert_rel(student_t_sf(t, 2), 0.5 - t / (2 * sqrt(2 + t * t)), 1e-10);
  }
  /* df = 3: 0.5 - (atan(t/sqrt3) + (t/sqrt3) / (1 + t^2/3)) / pi; at t = 1 that is 1/3 - sqrt(3)/(4 pi). */
  assert_rel(student_t_sf(1, 3), 1.0 / 3 - sqrt(3.0) / (4 * PI), 1e-10);
}
END_TEST

START_TEST(t_sf_tables) {
  /* Printed critical values (t rounded to 3 decimals, hence the 1e-5 tolerance). */
  ck_assert_double_eq_tol(student_t_sf(2.228, 10), 0.025, 1e-5);
  ck_assert_double_eq_tol(student_t_sf(3.169, 10), 0.005, 1e-5);
  ck_assert_double_eq_tol(student_t_sf(2.015, 5), 0.05, 1e-5);
  ck_assert_double_eq_tol(student_t_sf(1.96, 1e6), 0.025, 1e-5); /* the normal limit */
  /* Integrated, to 1e-10. */
  assert_rel(student_t_sf(2.228, 10), 0.02500588590855, 1e-10);
  assert_rel(student_t_sf(3.169, 10), 0.00500231668218, 1e-10);
  assert_rel(student_t_sf(2.015, 5), 0.05000308616340, 1e-10);
  assert_rel(student_t_sf(0.5, 7.5), 0.31570548231123, 1e-10); /* non-integer df */
  assert_rel(student_t_sf(1, 0.5), 0.30112161084132, 1e-10);
  /* df = 1e6: normal tail + phi(t) (t^3 + t) / (4 df), exact to O(1/df^2). */
  assert_rel(student_t_sf(1.96, 1e6), 0.02499803379258, 1e-10);
  assert_rel(student_t_sf(1.96, INFINITY), 0.5 * erfc(1.96 / sqrt(2.0)), 1e-12);
}
END_TEST

START_TEST(t_sf_edges) {
  ck_assert_double_eq(student_t_sf(0, 4.5), 0.5);
  ck_assert_double_eq_tol(student_t_sf(-1.3, 7) + student_t_sf(1.3, 7), 1.0, 1e-15);
  ck_assert_double_eq(student_t_sf(INFINITY, 3), 0.0);
  ck_assert_double_eq(student_t_sf(-INFINITY, 3), 1.0);
  ck_assert_double_eq(student_t_sf(1e200, 3), 0.0); /* t^2 overflows */
  ck_assert_double_nan(student_t_sf(1, 0));
  ck_assert_double_nan(student_t_sf(1, -2));
  ck_assert_double_nan(student_t_sf(NAN, 3));
}
END_TEST

START_TEST(welch_hand_worked) {
  /* x: mean 14, var (16+4+0+4+16)/4 = 10;  y: mean 10.5, var (2.25+0.25+0.25+2.25)/3 = 5/3.
   * vx/nx = 2, vy/ny = 5/12, sum 29/12: t = 3.5 / sqrt(29/12) = 2.251436;
   * df = (29/12)^2 / (2^2/4 + (5/12)^2/3) = 2523/457 = 5.520788; p integrated: 0.0345668. */
  const double x[] = {10, 12, 14, 16, 18}, y[] = {9, 10, 11, 12};
  context_test r = context_test_greater(x, 5, y, 4);
  ck_assert_double_eq_tol(r.mean_x, 14, 1e-12);
  ck_assert_double_eq_tol(r.mean_y, 10.5, 1e-12);
  ck_assert_double_eq_tol(r.t, 2.2514363231594, 1e-10);
  ck_assert_double_eq_tol(r.df, 2523.0 / 457, 1e-10);
  assert_rel(r.p, 0.034566796596197, 1e-9);
  /* The other direction: same df, t negated, p complemented. */
  context_test back = context_test_greater(y, 4, x, 5);
  ck_assert_double_eq_tol(back.t, -2.2514363231594, 1e-10);
  ck_assert_double_eq_tol(back.p, 1 - 0.034566796596197, 1e-11);
}
END_TEST

START_TEST(welch_one_constant_side) {
  /* vx = 0, vy = 1: t = (5 - 2) / sqrt(1/3) = 3 sqrt(3), df = n_y - 1 = 2, and the df = 2 closed form gives
   * p = 0.5 - 3 sqrt(3) / (2 sqrt(29)) = 0.017549. */
  const double x[] = {5, 5, 5}, y[] = {1, 2, 3};
  context_test r = context_test_greater(x, 3, y, 3);
  ck_assert_double_eq_tol(r.t, 3 * sqrt(3.0), 1e-12);
  ck_assert_double_eq_tol(r.df, 2, 1e-12);
  assert_rel(r.p, 0.5 - 3 * sqrt(3.0) / (2 * sqrt(29.0)), 1e-10);
}
END_TEST

START_TEST(prediction_single_run_context) {
  /* Baseline: 6 runs x 1 context, mean 100, squares 0+4+4+1+1+0 = 10, s^2 = 10/5 = 2. Run: one context, 104.
   * t = 4 / (sqrt(2) sqrt(1 + 1/6)) = 4 sqrt(3/7) = 2.618615, df = 5, p integrated: 0.0235883. */
  const double base[] = {100, 102, 98, 101, 99, 100}, run[] = {104};
  context_test r = context_test_greater(run, 1, base, 6);
  ck_assert_double_eq_tol(r.mean_x, 104, 1e-12);
  ck_assert_double_eq_tol(r.mean_y, 100, 1e-12);
  ck_assert_double_eq_tol(r.t, 4 * sqrt(3.0 / 7), 1e-12);
  ck_assert_double_eq(r.df, 5);
  assert_rel(r.p, 0.023588277465795, 1e-9);
  /* Mirrored: six values against one, 4 above it. */
  const double low[] = {96};
  context_test m = context_test_greater(base, 6, low, 1);
  ck_assert_double_eq_tol(m.t, 4 * sqrt(3.0 / 7), 1e-12);
  ck_assert_double_eq(m.df, 5);
  assert_rel(m.p, 0.023588277465795, 1e-9);
  /* A run context at the baseline mean: t = 0, p = 1/2. */
  const double same[] = {100};
  ck_assert_double_eq_tol(context_test_greater(same, 1, base, 6).p, 0.5, 1e-15);
}
END_TEST

static void assert_no_test(context_test r) {
  ck_assert_double_eq(r.p, 1.0);
  ck_assert_double_eq(r.df, 0.0);
  ck_assert_double_eq(r.t, 0.0);
}

/* A run's one context against its GPU's own runs, with the spread of a run known from the runs of
 * every GPU of the baseline (pooled within each GPU): t = (10.5 - 10) / (0.2 * sqrt(1 + 1/3))
 * = 2.1651, df 4; P(T_4 > t) = 0.048171 from the closed form of the t distribution with 4 df. */
START_TEST(known_spread_hand_worked) {
  const double x[] = {10.5}, y[] = {9.9, 10.0, 10.1};
  context_test r = context_test_greater_known_spread(x, 1, y, 3, 0.2, 4);
  ck_assert_double_eq_tol(r.mean_y, 10.0, 1e-12);
  ck_assert_double_eq_tol(r.t, 0.5 / (0.2 * sqrt(1 + 1.0 / 3)), 1e-12);
  ck_assert_double_eq_tol(r.df, 4, 1e-12);
  ck_assert_double_eq_tol(r.p, 0.048170538, 1e-8);
  /* y's own spread (0.1, df 2) plays no part: the same p with y = {10, 10, 10}. */
  const double flat[] = {10, 10, 10};
  ck_assert_double_eq_tol(context_test_greater_known_spread(x, 1, flat, 3, 0.2, 4).p, r.p, 1e-12);
  /* Mirrored (the run faster): p = 1 - 0.048171. */
  ck_assert_double_eq_tol(context_test_greater_known_spread(y, 3, x, 1, 0.2, 4).p, 1 - 0.048170538, 1e-8);
  /* No test without a usable spread or degrees of freedom, or with a side empty or not finite. */
  const double bad[] = {NAN};
  ck_assert_double_eq_tol(context_test_greater_known_spread(x, 1, y, 3, 0, 4).p, 1, 1e-12);
  ck_assert_double_eq_tol(context_test_greater_known_spread(x, 1, y, 3, 0.2, 0.5).p, 1, 1e-12);
  ck_assert_double_eq_tol(context_test_greater_known_spread(x, 1, y, 3, INFINITY, 4).p, 1, 1e-12);
  ck_assert_double_eq_tol(context_test_greater_known_spread(x, 0, y, 3, 0.2, 4).p, 1, 1e-12);
  ck_assert_double_eq_tol(context_test_greater_known_spread(bad, 1, y, 3, 0.2, 4).p, 1, 1e-12);
  ck_assert_double_eq_tol(context_test_greater_known_spread(bad, 1, y, 3, 0.2, 4).df, 0, 1e-12);
}
END_TEST

START_TEST(degenerate_inputs) {
  const double a[] = {1, 2, 3}, one[] = {5}, other[] = {3};
  assert_no_test(context_test_greater(a, 3, NULL, 0));
  assert_no_test(context_test_greater(NULL, 0, a, 3));
  assert_no_test(context_test_greater(NULL, 0, NULL, 0));
  assert_no_test(context_test_greater(one, 1, other, 1));
  /* Identical constants; also 0.1, whose naive mean of three copies is not 0.1 and would leave a variance. */
  const double c7[] = {7000, 7000, 7000, 7000}, tenth[] = {0.1, 0.1, 0.1};
  assert_no_test(context_test_greater(c7, 4, c7, 4));
  assert_no_test(context_test_greater(tenth, 3, tenth, 3));
  /* Constants with different means: no noise estimate, no test (documented choice). */
  const double c71[] = {7100, 7100, 7100, 7100};
  context_test r = context_test_greater(c71, 4, c7, 4);
  assert_no_test(r);
  ck_assert_double_eq(r.mean_x, 7100);
  ck_assert_double_eq(r.mean_y, 7000);
  assert_no_test(context_test_greater(one, 1, c7, 4)); /* single value against a constant side */
  /* Non-finite input. */
  const double with_nan[] = {1, NAN, 3}, with_inf[] = {1, 2, INFINITY};
  assert_no_test(context_test_greater(with_nan, 3, a, 3));
  assert_no_test(context_test_greater(a, 3, with_inf, 3));
  assert_no_test(context_test_greater(with_nan, 2, one, 1));
  /* Finite values whose differences overflow. */
  const double huge[] = {1e308, -1e308, 1e308};
  assert_no_test(context_test_greater(huge, 3, a, 3));
}
END_TEST

/* Correlated samples: 16 contexts per side, each with its own offset (uniform spread, 4% standard deviation
 * around 7000 ns, placed by the golden-ratio sequence: same distribution on both sides, different points),
 * and 200 samples per context = offset + noise within +-1 ns. */
enum { CONTEXTS = 16, PER_CONTEXT = 200 };
#define GOLDEN 0.61803398874989484820

static int by_value(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static double median(const double *v, size_t n) {
  double *s = malloc(n * sizeof *s);
  ck_assert_ptr_nonnull(s);
  memcpy(s, v, n * sizeof *s);
  qsort(s, n, sizeof *s, by_value);
  double m = n % 2 ? s[n / 2] : 0.5 * (s[n / 2 - 1] + s[n / 2]);
  free(s);
  return m;
}

/* samples[c * PER_CONTEXT + j] for context c; medians[c]. first picks the stretch of the sequence. */
static void contexts(int first, double shift, double *samples, double *medians) {
  const double half_width = 0.04 * sqrt(3.0); /* uniform on +-w has sd w/sqrt(3) */
  for (int c = 0; c < CONTEXTS; c++) {
    double u = fmod((first + c) * GOLDEN, 1.0);
    double offset = 7000 * (1 + shift) * (1 + half_width * (2 * u - 1));
    for (int j = 0; j < PER_CONTEXT; j++)
      samples[c * PER_CONTEXT + j] = offset + ((j * 7919) % PER_CONTEXT - 99.5) * 0.01;
    medians[c] = median(samples + c * PER_CONTEXT, PER_CONTEXT);
  }
}

START_TEST(correlated_samples_are_not_independent_evidence) {
  static double base[CONTEXTS * PER_CONTEXT], run[CONTEXTS * PER_CONTEXT];
  double base_med[CONTEXTS], run_med[CONTEXTS];
  contexts(1, 0.0, base, base_med);
  contexts(17, 0.01, run, run_med); /* +1%, well inside the 4% context spread */
  /* Welch on the medians (python, same construction): t = 0.8251, df = 30.0, p = 0.2079. */
  context_test r = context_test_greater(run_med, CONTEXTS, base_med, CONTEXTS);
  ck_assert_double_gt(r.p, 0.05);
  ck_assert_double_eq_tol(r.p, 0.2079, 1e-3);
  ck_assert_double_eq_tol(r.df, 30.0, 0.1);
  /* The pooled-sample U test counts 3200 correlated samples as independent: p = 1.3e-27. */
  ck_assert_double_lt(mann_whitney_p_greater(run, CONTEXTS * PER_CONTEXT, base, CONTEXTS * PER_CONTEXT), 1e-6);
}
END_TEST

START_TEST(real_shift_is_detected) {
  static double base[CONTEXTS * PER_CONTEXT], run[CONTEXTS * PER_CONTEXT];
  double base_med[CONTEXTS], run_med[CONTEXTS];
  contexts(1, 0.0, base, base_med);
  contexts(17, 0.05, run, run_med);
  /* Welch on the medians (python): t = 3.534, df = 29.9, p = 0.00068. */
  context_test r = context_test_greater(run_med, CONTEXTS, base_med, CONTEXTS);
  ck_assert_double_lt(r.p, 0.01);
  ck_assert_double_eq_tol(r.p, 0.000676, 2e-5);
  ck_assert_double_gt(context_test_greater(base_med, CONTEXTS, run_med, CONTEXTS).p, 0.99);
}
END_TEST

/* The smallest detectable shift. One run context against six baseline values
 * {100, 102, 98, 101, 99, 100}: mean 100, s = sqrt(2); the prediction test is significant at
 * p < 0.01 once (d * 100) / (s * sqrt(7/6)) > t_0.99(5) = 3.36493, so d = 3.36493 * 1.41421 *
 * 1.08012 / 100 = 0.051401. With 16 run contexts of the same spread, Welch's df =
 * (2/16 + 2/6)^2 / ((2/16)^2/15 + (2/6)^2/5) = 9.0299, t_0.99 = 2.81950, d = 2.81950 * sqrt(2/16 + 2/6) / 100
 * = 0.019088 (t quantiles by numerical integration of the t density). */
START_TEST(detectable_shift) {
  const double y[6] = {100, 102, 98, 101, 99, 100};
  ck_assert_double_eq_tol(context_test_detectable(y, 6, 1, 0.01), 0.051401, 2e-5);
  ck_assert_double_eq_tol(context_test_detectable(y, 6, 16, 0.01), 0.019088, 2e-5);
  /* At the shift found, the test itself agrees: just over it significant, just under not. */
  double d = context_test_detectable(y, 6, 1, 0.01), x = 100 * (1 + d * 1.001), x2 = 100 * (1 + d * 0.999);
  ck_assert_double_lt(context_test_greater(&x, 1, y, 6).p, 0.01);
  ck_assert_double_gt(context_test_greater(&x2, 1, y, 6).p, 0.01);
  /* More baseline values at the same spread: a smaller shift will do. */
  const double y12[12] = {100, 102, 98, 101, 99, 100, 100, 102, 98, 101, 99, 100};
  ck_assert_double_lt(context_test_detectable(y12, 12, 1, 0.01), 0.04);
  /* Nothing to go on: fewer than two values, or no spread. */
  const double flat[3] = {5, 5, 5};
  ck_assert(isinf(context_test_detectable(y, 1, 1, 0.01)));
  ck_assert(isinf(context_test_detectable(flat, 3, 1, 0.01)));
  /* Spread so wide that not even +100 % would be significant. */
  const double wide[2] = {1, 199};
  ck_assert(isinf(context_test_detectable(wide, 2, 1, 0.01)));
}
END_TEST

/* The tail test: k of nx values above all of ny, p = C(nx, k) / C(nx + ny, k). */
START_TEST(tail_p_counts_values_beyond_all_others) {
  double y[100], x[4] = {1.5, 1.5, 1.0, 1.0};
  for (int i = 0; i < 100; i++) y[i] = 1.0 + 0.001 * (i % 7);
  ck_assert_double_eq_tol(context_tail_p_greater(x, 4, y, 100), 12.0 / (104.0 * 103.0), 1e-15);
  x[1] = 1.0; /* one context beyond: 4/104, an interruption's odds */
  ck_assert_double_eq_tol(context_tail_p_greater(x, 4, y, 100), 4.0 / 104.0, 1e-15);
  x[0] = 1.0; /* none beyond */
  ck_assert_double_eq(context_tail_p_greater(x, 4, y, 100), 1.0);
  double all[4] = {2, 2, 2, 2};
  ck_assert_double_eq_tol(context_tail_p_greater(all, 4, y, 100), 24.0 / (104.0 * 103 * 102 * 101), 1e-18);
  ck_assert_double_eq(context_tail_p_greater(all, 4, y, 0), 1.0);
  all[2] = NAN;
  ck_assert_double_eq(context_tail_p_greater(all, 4, y, 100), 1.0);
}
END_TEST

int main(void) {
  Suite *s = suite_create("context_stats");
  TCase *tc = tcase_create("context_stats");
  tcase_add_test(tc, t_sf_closed_forms);
  tcase_add_test(tc, tail_p_counts_values_beyond_all_others);
  tcase_add_test(tc, t_sf_tables);
  tcase_add_test(tc, t_sf_edges);
  tcase_add_test(tc, welch_hand_worked);
  tcase_add_test(tc, welch_one_constant_side);
  tcase_add_test(tc, prediction_single_run_context);
  tcase_add_test(tc, known_spread_hand_worked);
  tcase_add_test(tc, degenerate_inputs);
  tcase_add_test(tc, correlated_samples_are_not_independent_evidence);
  tcase_add_test(tc, real_shift_is_detected);
  tcase_add_test(tc, detectable_shift);
  suite_add_tcase(s, tc);
  return run_suite(s);
}
