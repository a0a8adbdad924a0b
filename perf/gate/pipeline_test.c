/* Known-answer tests of the decision's three stages, each on its own, with figures built in memory:
 * the comparison side (which baseline runs), adjust (interrupted contexts, time and noise), decide (threshold,
 * verdict and reasons, the host round trip rule). compare_figures runs them in turn (gate_compare_test,
 * gate_contexts_test, gate_reference_test). */
#define _POSIX_C_SOURCE 200809L
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "perf/gate/compare.h"
#include "perf/gate/report.h"
#include "tests/support/check_run.h"

typedef struct {
  const char *uuid;
  double copy_gbps, time_ns; /* the GPU's copy probe; the run's time (its 16 contexts spread +-0.15 % about it) */
} run_spec;

/* One benchmark, "fam/x/N:1", measured once by each run of `runs`, all on testbed "tb". */
static gate_figures figures(const run_spec *runs, size_t n, int host_round_trip) {
  gate_figures f;
  memset(&f, 0, sizeof f);
  snprintf(f.gpu.name, sizeof f.gpu.name, "NVIDIA H100 80GB HBM3");
  gpu_slug(f.gpu.name, f.gpu.slug, sizeof f.gpu.slug);
  f.runs = calloc(n, sizeof *f.runs);
  f.nruns = n;
  f.b = calloc(1, sizeof *f.b);
  f.n = 1;
  gate_bench *b = &f.b[0];
  b->name = strdup("fam/x/N:1");
  b->bytes_per_second = 1e12;
  b->host_round_trip = host_round_trip;
  b->runs = calloc(n, sizeof *b->runs);
  b->nruns = n;
  for (size_t r = 0; r < n; r++) {
    gate_run_info *info = &f.runs[r];
    snprintf(info->date, sizeof info->date, "2026-11-26T00:00:%02zu+00:00", r);
    snprintf(info->gpu_uuid, sizeof info->gpu_uuid, "%s", runs[r].uuid);
    snprintf(info->testbed, sizeof info->testbed, "tb");
    snprintf(info->l2_flush, sizeof info->l2_flush, "read");
    info->copy_bytes_per_second = runs[r].copy_gbps * 1e9;
    info->contexts = 16;
    info->contexts_below_s = 50e-6;
    gate_measure *m = &b->runs[r];
    m->run = r;
    m->ncontexts = 16;
    m->contexts_ns = malloc(16 * sizeof *m->contexts_ns);
    double sum = 0;
    for (int k = 0; k < 16; k++) sum += m->contexts_ns[k] = runs[r].time_ns * (1 + 0.001 * (k % 4 - 1.5));
    m->time_ns = sum / 16;
    m->samples_taken = 100;
  }
  return f;
}

/* GPU A has two runs, B and C one each, all of one GPU kind (copy 3000-3002 GB/s); D two runs of
 * another GPU kind (3015, +0.5 %). */
static const run_spec kBase[] = {{"GPU-A", 3000, 1000}, {"GPU-A", 3000, 1002}, {"GPU-B", 3001, 1004},
                                 {"GPU-C", 3002, 1006}, {"GPU-D", 3015, 1030}, {"GPU-D", 3015, 1031}};

START_TEST(reference_own_gpu_then_its_kind_then_all) {
  gate_figures base = figures(kBase, 6, 0);
  double *copies = gpu_copies(&base);
  ck_assert_double_eq_tol(copies[1], 3000e9, 1); /* each run's GPU's median copy probe */
  ck_assert_double_eq_tol(copies[4], 3015e9, 1);
  static const struct {
    run_spec run;
    int host_round_trip;
    gate_reference which;
    size_t runs, gpus;
  } cases[] = {
      {{"GPU-A", 3000, 1000}, 0, REF_OWN_GPU, 2, 1},      /* blessed in: its own two runs */
      {{"GPU-E", 3000.5, 1000}, 0, REF_ITS_KIND, 4, 3},   /* outside: the three GPUs of its GPU kind */
      {{"GPU-F", 3030, 1000}, 0, REF_OTHER_KINDS, 6, 4},  /* no GPU of its GPU kind: all, said so */
      {{"GPU-E", 3000.5, 1000}, 1, REF_EVERY_HOST, 6, 4}, /* a host round trip: all, never a GPU kind */
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    gate_figures run = figures(&cases[i].run, 1, cases[i].host_round_trip);
    bench_reference ref = reference_for(&base, &run, &base.b[0], &run.b[0], cases[i].run.copy_gbps * 1e9, copies);
    ck_assert_msg(ref.which == cases[i].which, "case %zu: comparison side %d", i, (int)ref.which);
    ck_assert_uint_eq(ref.runs, cases[i].runs);
    ck_assert_uint_eq(ref.gpus, cases[i].gpus);
    ck_assert_uint_eq(reference_runs(&ref)->nruns, cases[i].runs);
    free_bench_reference(&ref);
    free_figures(&run);
  }
  ck_assert_uint_eq(gpus_of(&base, &base.b[0]), 4);
  ck_assert_uint_eq(kind_gpus_of(&base, &base.b[0], 3000.5e9), 3);
  free(copies);
  free_figures(&base);
}
END_TEST

START_TEST(adjust_sets_aside_interrupted_contexts_and_takes_the_noise_of_slower_runs) {
  double v[16], kept[16];
  for (int k = 0; k < 16; k++) v[k] = 1000 + k % 3;
  v[7] = 1300; /* +30 %: interrupted */
  ck_assert_uint_eq(kept_contexts(v, 16, kept), 15);
  v[7] = 1080; /* +8 %: under the 10 % floor, kept */
  ck_assert_uint_eq(kept_contexts(v, 16, kept), 16);
  double three[3] = {1000, 1001, 2000}; /* under 4 contexts a run is kept whole */
  ck_assert_uint_eq(kept_contexts(three, 3, kept), 3);
  /* Three runs of 1000, 1010 and 1020 ns: the time is their median, the noise how much the slowest
   * exceeds it; faster runs add nothing. */
  static const run_spec runs[] = {{"GPU-A", 3000, 1000}, {"GPU-B", 3000, 1010}, {"GPU-C", 3000, 1020}};
  gate_figures f = figures(runs, 3, 0);
  scaled s = scale_bench(&f, &f.b[0], METRIC_TIME, 0);
  ck_assert_double_eq_tol(s.time, 1010, 1e-6);
  ck_assert_double_eq_tol(s.noise, 10.0 / 1010, 1e-9);
  ck_assert_uint_eq(s.ncontexts, 48);
  ck_assert_uint_eq(s.set_aside, 0);
  free(s.contexts);
  free_figures(&f);
}
END_TEST

/* A comparison of base (48 contexts about 1000 ns) and run (16 about run_ns), decided with p. */
static comparison decided(double run_ns, const gate_policy *p, int host_round_trip, size_t base_runs) {
  static const run_spec runs[] = {{"GPU-A", 3000, 1000}, {"GPU-B", 3000, 1000}, {"GPU-C", 3000, 1000}};
  run_spec one = {"GPU-E", 3000, run_ns};
  gate_figures base = figures(runs, 3, 0), run = figures(&one, 1, 0);
  adjusted a = {.have_run = 1};
  a.base = scale_bench(&base, &base.b[0], METRIC_TIME, 0);
  a.run = scale_bench(&run, &run.b[0], METRIC_TIME, 0);
  comparison x;
  memset(&x, 0, sizeof x);
  x.name = "fam/x/N:1";
  x.base_ns = a.base.time;
  x.noise = a.base.noise;
  x.threshold = threshold_for(p, x.name, 0, x.noise);
  x.host_round_trip = host_round_trip;
  x.base_runs = base_runs;
  decide_bench(&x, &a, p);
  free_adjusted(&a);
  free_figures(&base);
  free_figures(&run);
  return x;
}

START_TEST(decide_threshold_verdict_and_reasons) {
  gate_policy p = default_policy();
  /* The threshold: max(tolerance, 3 x noise); 2 % against own runs; a family's own tolerance. */
  ck_assert_double_eq_tol(threshold_for(&p, "fam/x/N:1", 0, 0.005), 0.03, 1e-12);
  ck_assert_double_eq_tol(threshold_for(&p, "fam/x/N:1", 0, 0.02), 0.06, 1e-12);
  ck_assert_double_eq_tol(threshold_for(&p, "fam/x/N:1", 1, 0.001), 0.02, 1e-12);
  char err[256];
  ck_assert_int_eq(add_family_tolerance(&p, "fam=0.07", err, sizeof err), 0);
  ck_assert_double_eq_tol(threshold_for(&p, "fam/x/N:1", 0, 0.005), 0.07, 1e-12);
  ck_assert_double_eq_tol(threshold_for(&p, "other/x/N:1", 0, 0.005), 0.03, 1e-12);
  p = default_policy();
  p.min_delta_ns = 10;
  unsigned all = REASON_BEYOND_THRESHOLD | REASON_SIGNIFICANT | REASON_ABOVE_FLOOR;
  comparison x = decided(1040, &p, 0, 3); /* +4 %: beyond 3 %, significant, above 10 ns */
  ck_assert_int_eq(x.v, VERDICT_SLOWER);
  ck_assert_uint_eq(x.reasons & all, all);
  x = decided(1020, &p, 0, 3); /* +2 %: significant, above the floor, not beyond the threshold */
  ck_assert_int_eq(x.v, VERDICT_SAME);
  ck_assert_uint_eq(x.reasons & all, REASON_SIGNIFICANT | REASON_ABOVE_FLOOR);
  x = decided(960, &p, 0, 3); /* -4 %: faster, by the same criteria the other way */
  ck_assert_int_eq(x.v, VERDICT_FASTER);
  ck_assert_uint_eq(x.reasons & all, all);
  p.min_delta_ns = 250; /* 40 ns of a 1 us kernel: under the floor */
  x = decided(1040, &p, 0, 3);
  ck_assert_int_eq(x.v, VERDICT_SAME);
  ck_assert_uint_eq(x.reasons & REASON_ABOVE_FLOOR, 0);
  /* A host round trip gates from HOST_ROUND_TRIP_MIN_RUNS runs of its testbed. */
  p.min_delta_ns = 10;
  x = decided(1040, &p, 1, HOST_ROUND_TRIP_MIN_RUNS - 1);
  ck_assert_int_eq(x.v, VERDICT_SAME);
  ck_assert(x.reasons & REASON_FEW_HOST_RUNS);
  x = decided(960, &p, 1, HOST_ROUND_TRIP_MIN_RUNS - 1); /* nor faster */
  ck_assert_int_eq(x.v, VERDICT_SAME);
  ck_assert(x.reasons & REASON_FEW_HOST_RUNS);
  x = decided(1040, &p, 1, HOST_ROUND_TRIP_MIN_RUNS);
  ck_assert_int_eq(x.v, VERDICT_SLOWER);
  /* The labels of the run: a library reference that is slower does not fail; no testbed is said. */
  label_verdict(&x, "tb", 1);
  ck_assert(x.reasons & REASON_LIBRARY_REFERENCE);
  ck_assert_int_eq(verdict_fails(&x), 0);
  label_verdict(&x, "", 0);
  ck_assert(x.reasons & REASON_NO_TESTBED);
  x.reasons &= ~REASON_LIBRARY_REFERENCE;
  ck_assert_int_eq(verdict_fails(&x), 1);
  char names[256];
  reason_names(REASON_BEYOND_THRESHOLD | REASON_FEW_HOST_RUNS, names, sizeof names);
  ck_assert_str_eq(names, "beyond_threshold,host_round_trip_under_6_runs");
}
END_TEST

/* The decision rule's flags are parsed in one place (POLICY_FLAGS): each sets its field, in its unit, within its
 * range; a bad value names the flag and the range; another flag is not one of them. */
START_TEST(policy_flags_in_one_place) {
  gate_policy p = default_policy();
  char err[256];
  ck_assert_int_eq(policy_flag(&p, "tolerance", "0.04", err, sizeof err), 0);
  ck_assert_double_eq(p.tolerance, 0.04);
  ck_assert_int_eq(policy_flag(&p, "min_delta_us", "0.5", err, sizeof err), 0);
  ck_assert_double_eq(p.min_delta_ns, 500);
  ck_assert_int_eq(policy_flag(&p, "k_noise", "2.5", err, sizeof err), 0);
  ck_assert_double_eq(p.k_noise, 2.5);
  ck_assert_int_eq(policy_flag(&p, "family_tolerance", "reduce=0.07", err, sizeof err), 0);
  ck_assert_double_eq(tolerance_for(&p, "reduce/v0/N:1", 0), 0.07);
  ck_assert_int_eq(policy_flag(&p, "alpha", "1", err, sizeof err), 1);
  ck_assert_str_eq(err, "--alpha=1: want a number in (0, 1)");
  ck_assert_int_eq(policy_flag(&p, "k_noise", "nan", err, sizeof err), 1);
  ck_assert_int_eq(policy_flag(&p, "title", "x", err, sizeof err), -1);
}
END_TEST

/* Each verdict says why in words a reader can check against its row (#57): which criterion held or failed, with
 * the figure and the limit, and what the allowed threshold came from. */
START_TEST(each_verdict_says_why) {
  gate_policy p = default_policy();
  comparison x;
  memset(&x, 0, sizeof x);
  x.name = "dot/tree_host_finish/N:1048576";
  x.base_ns = 21971, x.run_ns = 23318, x.delta = 0.0613, x.threshold = 3 * 0.0723, x.noise = 0.0723;
  x.p_slower = 1.2e-4, x.v = VERDICT_SAME, x.reasons = REASON_SIGNIFICANT | REASON_ABOVE_FLOOR;
  char why[512];
  verdict_reason(&x, &p, why, sizeof why);
  ck_assert_str_eq(why, "same: +6.13 % is within the 21.7 % allowed: 3 x the baseline's noise of 7.23 %");
  x.delta = 0.25, x.threshold = 0.03, x.noise = 0.002, x.p_slower = 0.09;
  x.reasons = REASON_BEYOND_THRESHOLD | REASON_ABOVE_FLOOR;
  verdict_reason(&x, &p, why, sizeof why);
  ck_assert_str_eq(why,
                   "same: +25.00 % is beyond the 3.0 % allowed: the tolerance, but p 0.09 is not below 0.01: "
                   "chance can make it");
  x.base_ns = 7000, x.run_ns = 7230, x.delta = 230.0 / 7000, x.p_slower = 1e-5;
  x.reasons = REASON_BEYOND_THRESHOLD | REASON_SIGNIFICANT;
  verdict_reason(&x, &p, why, sizeof why);
  ck_assert_str_eq(why,
                   "same: +3.29 % is beyond the 3.0 % allowed: the tolerance, but 0.23 us is under the 0.25 us "
                   "floor");
  x.reasons |= REASON_FEW_HOST_RUNS, x.base_runs = 2;
  verdict_reason(&x, &p, why, sizeof why);
  ck_assert_msg(strstr(why, "a host round trip gates from 6 runs of its testbed and this one has 2") != NULL, "%s",
                why);
  x.v = VERDICT_SLOWER, x.base_ns = 7000, x.run_ns = 7588, x.delta = 0.084, x.p_slower = 1e-6;
  x.reasons = REASON_BEYOND_THRESHOLD | REASON_SIGNIFICANT | REASON_ABOVE_FLOOR | REASON_CONFIRMED;
  verdict_reason(&x, &p, why, sizeof why);
  ck_assert_str_eq(why,
                   "slower: +8.40 % > 3.0 % allowed: the tolerance; p 1e-06 < 0.01; +0.59 us > the 0.25 us floor; "
                   "confirmed in a fresh process");
  x.own_gpu = 1, x.threshold = 0.02;
  verdict_reason(&x, &p, why, sizeof why);
  ck_assert_msg(strstr(why, "2.0 % allowed: the tolerance against this GPU's own runs") != NULL, "%s", why);
  x.library_reference = 1;
  verdict_reason(&x, &p, why, sizeof why);
  ck_assert_msg(strncmp(why, "slower, a library reference: +8.40 %", 36) == 0 && strstr(why, "not a failure") &&
                    strstr(why, "the environment changed"),
                "%s", why);
  x.reasons |= REASON_OTHER_GPUS;
  verdict_reason(&x, &p, why, sizeof why);
  ck_assert_msg(
      strstr(why, "against other GPUs than this one: their difference or the environment, not a failure") != NULL &&
          strstr(why, "the environment changed") == NULL,
      "%s", why);
  x.v = VERDICT_UNCHANGED, x.reasons = REASON_SAME_TIMED_WORK;
  verdict_reason(&x, &p, why, sizeof why);
  ck_assert_str_eq(why,
                   "unchanged: the same timed work (kernels, launches, copies) as the base revision, so not "
                   "measured");
  x.v = VERDICT_NEW, x.reasons = REASON_BASE_LACKS_IT;
  verdict_reason(&x, &p, why, sizeof why);
  ck_assert_str_eq(why, "new: neither the baseline nor the base revision has it");
  x.v = VERDICT_MISSING;
  verdict_reason(&x, &p, why, sizeof why);
  ck_assert_str_eq(why, "missing: the baseline has it, this run did not measure it");
}
END_TEST

int main(void) {
  Suite *s = suite_create("pipeline");
  TCase *tc = tcase_create("pipeline");
  tcase_add_test(tc, reference_own_gpu_then_its_kind_then_all);
  tcase_add_test(tc, adjust_sets_aside_interrupted_contexts_and_takes_the_noise_of_slower_runs);
  tcase_add_test(tc, decide_threshold_verdict_and_reasons);
  tcase_add_test(tc, each_verdict_says_why);
  tcase_add_test(tc, policy_flags_in_one_place);
  suite_add_tcase(s, tc);
  return run_suite(s);
}
