/* CPU tests of the regression gate's verdicts on generated run files shaped like the runner's JSON: faster, same,
 * slower, new and missing; the absolute floor, a noisy baseline's wider threshold, the copy-ratio metric, and what
 * a slower verdict's message says. */
#define _GNU_SOURCE
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "perf/gate/compare.h"
#include "perf/gate/figures.h"
#include "perf/gate/report.h"
#include "perf/gate/testutil.h"
#include "tests/support/check_run.h"

START_TEST(verdicts_faster_same_slower_new_missing) {
  gate_figures base, run;
  char err[1024];
  make_baseline(&base);
  const fake_bench now[] = {{"elementwise/add/N:1", 1000 * 0.90},        /* 10% faster */
                            {"elementwise/add_float4/N:1", 2000 * 1.02}, /* 2%: within tolerance */
                            {"elementwise/new_kernel/N:1", 500}};        /* saxpy missing */
  write_run("now.json", H100, 132, 3000.0, now, 3, 99);
  ck_assert_msg(load_run(at("now.json"), &run, err, sizeof err) == 0, "%s", err);
  gate_policy p = default_policy();
  p.min_delta_ns = 0; /* these fakes are 1-3 us long */
  comparison *c;
  size_t n = compare_figures(&base, &run, &p, &c);
  ck_assert_uint_eq(n, 4);
  ck_assert_int_eq(verdict_of(c, n, "elementwise/add/N:1"), VERDICT_FASTER);
  ck_assert_int_eq(verdict_of(c, n, "elementwise/add_float4/N:1"), VERDICT_SAME);
  ck_assert_int_eq(verdict_of(c, n, "elementwise/saxpy/N:1"), VERDICT_MISSING);
  ck_assert_int_eq(verdict_of(c, n, "elementwise/new_kernel/N:1"), VERDICT_NEW);
  free(c);
  free_figures(&run);

  const fake_bench slow[] = {{"elementwise/add/N:1", 1000 * 1.08},
                             {"elementwise/add_float4/N:1", 2000},
                             {"elementwise/saxpy/N:1", 3000 * 1.06}};
  write_run("slow.json", H100, 132, 3000.0, slow, 3, 7);
  ck_assert_msg(load_run(at("slow.json"), &run, err, sizeof err) == 0, "%s", err);
  n = compare_figures(&base, &run, &p, &c);
  ck_assert_int_eq(verdict_of(c, n, "elementwise/add/N:1"), VERDICT_SLOWER);
  ck_assert_int_eq(verdict_of(c, n, "elementwise/add_float4/N:1"), VERDICT_SAME);
  ck_assert_int_eq(verdict_of(c, n, "elementwise/saxpy/N:1"), VERDICT_SLOWER);
  ck_assert_double_eq_tol(c[0].delta, 0.08, 0.015);
  /* A family tolerance of 10% lets both pass. */
  ck_assert_int_eq(add_family_tolerance(&p, "elementwise=0.10", err, sizeof err), 0);
  free(c);
  n = compare_figures(&base, &run, &p, &c);
  ck_assert_int_eq(verdict_of(c, n, "elementwise/add/N:1"), VERDICT_SAME);
  free(c);
  free_figures(&run);
  free_figures(&base);
}
END_TEST

/* A slower verdict judged against other GPU kinds says what would settle it: on a runner outside the
 * baseline, bring it in; on a host already blessed in whose soak rounds ran this family on its other
 * GPUs (the 2-GPU H100 host, 2026-11-26), bless more rounds of it. */
START_TEST(a_slower_verdict_against_other_kinds_says_what_would_settle_it) {
  comparison c = {.name = "reduce/v7/N:1",
                  .v = VERDICT_SLOWER,
                  .kind_gpus = 1,
                  .delta = 0.05,
                  .threshold = 0.03,
                  .base_ns = 1000,
                  .run_ns = 1050,
                  .launch_probe_ns = NAN,
                  .testbed = ""};
  char msg[1024];
  failure_message(&c, msg, sizeof msg);
  ck_assert_msg(strstr(msg, "bring this runner into the baseline") != NULL, "%s", msg);
  c.testbed = "NVIDIA H100 80GB HBM3 x2 NVLink | cpu | driver 1";
  failure_message(&c, msg, sizeof msg);
  ck_assert_msg(strstr(msg, "of its kind in the baseline of this testbed") != NULL, "%s", msg);
  ck_assert_msg(strstr(msg, "bless more rounds of this host in") != NULL, "%s", msg);
  ck_assert_msg(strstr(msg, "bring this runner") == NULL, "%s", msg);
}
END_TEST

START_TEST(changes_under_the_absolute_floor_pass) {
  gate_figures base, run;
  char err[1024];
  make_baseline(&base);
  const fake_bench slow[] = {
      {"elementwise/add/N:1", 1000 * 1.5}, {"elementwise/add_float4/N:1", 2000}, {"elementwise/saxpy/N:1", 3000}};
  write_run("floor.json", H100, 132, 3000.0, slow, 3, 8);
  ck_assert(load_run(at("floor.json"), &run, err, sizeof err) == 0);
  gate_policy p = default_policy();
  p.min_delta_ns = 600; /* +50% of 1 us is 500 ns: under the floor */
  comparison *c;
  size_t n = compare_figures(&base, &run, &p, &c);
  ck_assert_int_eq(verdict_of(c, n, "elementwise/add/N:1"), VERDICT_SAME);
  free(c);
  p.min_delta_ns = 400;
  n = compare_figures(&base, &run, &p, &c);
  ck_assert_int_eq(verdict_of(c, n, "elementwise/add/N:1"), VERDICT_SLOWER);
  free(c);
  free_figures(&base);
  free_figures(&run);
}
END_TEST

START_TEST(noisy_baseline_widens_the_threshold) {
  gate_figures runs[3], base, run;
  char err[1024];
  for (int r = 0; r < 3; r++) {
    fake_bench b[1] = {{"elementwise/add/N:1", 1000 * (1.0 + 0.04 * (r - 1))}}; /* +-4% between runs */
    char name[64];
    FORMAT(name, "noisy%d.json", r);
    write_run(name, H100, 132, 3000.0, b, 1, 20 + r);
    ck_assert(load_run(at(name), &runs[r], err, sizeof err) == 0);
  }
  ck_assert(merge_runs(runs, 3, &base, err, sizeof err) == 0);
  fake_bench b[1] = {{"elementwise/add/N:1", 1000 * 1.08}};
  write_run("noisy_now.json", H100, 132, 3000.0, b, 1, 5);
  ck_assert(load_run(at("noisy_now.json"), &run, err, sizeof err) == 0);
  gate_policy p = default_policy();
  p.min_delta_ns = 0; /* these fakes are 1-3 us long */
  comparison *c;
  size_t n = compare_figures(&base, &run, &p, &c);
  ck_assert_int_eq(c[0].v, VERDICT_SAME); /* 8% < 3 x 4% noise */
  ck_assert_double_gt(c[0].threshold, 0.11);
  free(c);
  (void)n;
  for (int r = 0; r < 3; r++) free_figures(&runs[r]);
  free_figures(&base);
  free_figures(&run);
}
END_TEST

START_TEST(copy_ratio_cancels_a_slower_machine) {
  gate_figures base, run;
  char err[1024];
  make_baseline(&base);
  /* Everything 7% slower, the copy probe included: a slower machine, not a slower kernel. */
  fake_bench b[3];
  memcpy(b, base_set, sizeof b);
  for (int i = 0; i < 3; i++) b[i].time_ns *= 1.07;
  write_run("slow_machine.json", H100, 132, 3000.0 / 1.07, b, 3, 3);
  ck_assert(load_run(at("slow_machine.json"), &run, err, sizeof err) == 0);
  gate_policy p = default_policy();
  p.min_delta_ns = 0; /* these fakes are 1-3 us long */
  comparison *c;
  size_t n = compare_figures(&base, &run, &p, &c);
  ck_assert_int_eq(verdict_of(c, n, "elementwise/add/N:1"), VERDICT_SLOWER);
  free(c);
  p.metric = METRIC_COPY_RATIO;
  n = compare_figures(&base, &run, &p, &c);
  ck_assert_int_eq(verdict_of(c, n, "elementwise/add/N:1"), VERDICT_SAME);
  ck_assert_double_lt(fabs(c[0].delta), 0.015);
  free(c);
  free_figures(&base);
  free_figures(&run);
}
END_TEST

int main(int argc, char **argv) {
  if (test_setup(argc, argv)) return 2;
  Suite *s = suite_create("gate_compare");
  TCase *tc = tcase_create("compare");
  tcase_set_timeout(tc, 30);
  tcase_add_test(tc, verdicts_faster_same_slower_new_missing);
  tcase_add_test(tc, noisy_baseline_widens_the_threshold);
  tcase_add_test(tc, changes_under_the_absolute_floor_pass);
  tcase_add_test(tc, a_slower_verdict_against_other_kinds_says_what_would_settle_it);
  tcase_add_test(tc, copy_ratio_cancels_a_slower_machine);
  suite_add_tcase(s, tc);
  return run_suite(s);
}
