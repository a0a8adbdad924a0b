/* CPU tests of the regression gate's evidence per CUDA context: short benchmarks judged on their context medians,
 * interrupted contexts set aside, a long benchmark's few slow contexts caught by the tail test, and the launch
 * probe shown, never taken off. */
#define _GNU_SOURCE
#include <check.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "perf/gate/compare.h"
#include "perf/gate/figures.h"
#include "perf/gate/report.h"
#include "perf/gate/testutil.h"
#include "tests/support/check_run.h"

/* Writes a run of add/N:1 (short: 16 contexts) and saxpy/N:1 (long: one context). */
static void context_run(const char *file, unsigned seed, const double *medians, size_t k) {
  const fake_bench b[2] = {{"elementwise/add/N:1", 7000}, {"elementwise/saxpy/N:1", 300000}};
  write_run(file, H100, 132, 3000.0, b, 2, seed);
  set_contexts(file, 0, medians, k);
}

/* A long benchmark (four contexts) with two of them 50 % slower: Welch's test on four contexts says p 0.09 and the
 * run passed as "same" (#56 W02); the tail test sees two contexts beyond all 100 of the baseline's. One context
 * beyond (an interruption's odds, 4 in 104) is still "same". */
START_TEST(some_slow_contexts_of_a_long_benchmark_are_slower) {
  gate_figures runs[25], base, run;
  char err[1024], name[64];
  const fake_bench one[1] = {{"transpose/naive_row/nx:8192/ny:8192", 1e6}};
  for (int r = 0; r < 25; r++) {
    FORMAT(name, "long%d.json", r);
    write_run(name, H100, 132, 3000.0, one, 1, 70 + (unsigned)r);
    double med[4];
    for (int j = 0; j < 4; j++) med[j] = 1e6 * (1 + 0.0005 * ((r + j) % 5 - 2));
    set_contexts(name, 0, med, 4);
    runs[r] = load_ok(name);
  }
  ck_assert_msg(merge_runs(runs, 25, &base, err, sizeof err) == 0, "%s", err);
  gate_policy p = default_policy();
  double bimodal[4] = {1.5e6, 1.5e6, 1e6, 1e6};
  write_run("long_now.json", H100, 132, 3000.0, one, 1, 99);
  set_contexts("long_now.json", 0, bimodal, 4);
  run = load_ok("long_now.json");
  comparison *c;
  compare_figures(&base, &run, &p, &c);
  ck_assert_double_eq_tol(c[0].delta, 0.25, 0.002);
  ck_assert_msg(c[0].v == VERDICT_SLOWER, "verdict %s, p %g", verdict_name(c[0].v), c[0].p_slower);
  ck_assert_double_lt(c[0].p_slower, 0.002);
  free(c);
  free_figures(&run);
  bimodal[1] = 1e6;
  write_run("long_one.json", H100, 132, 3000.0, one, 1, 98);
  set_contexts("long_one.json", 0, bimodal, 4);
  run = load_ok("long_one.json");
  compare_figures(&base, &run, &p, &c);
  ck_assert_int_eq(c[0].v, VERDICT_SAME);
  free(c);
  free_figures(&run);
  free_figures(&base);
  for (int r = 0; r < 25; r++) free_figures(&runs[r]);
}
END_TEST

/* Times are compared as measured; the launch probe (an empty kernel) is shown in the evidence and
 * never taken off (LAUNCH_PROBE_SHOWN_ONLY, compare.h): a process whose probe alone moved (5.30 us
 * against 4.68-4.95 us, its kernels unmoved) leaves its verdicts as its kernels' times make them. */
START_TEST(the_launch_probe_is_shown_not_taken_off) {
  gate_figures runs[2], base, run;
  char err[1024];
  probed_run("probe_base0.json", 60, 7000, 300000, 2900);
  probed_run("probe_base1.json", 61, 7020, 300300, 2920);
  runs[0] = load_ok("probe_base0.json");
  runs[1] = load_ok("probe_base1.json");
  ck_assert_double_eq_tol(runs[0].runs[0].launch_first_ns, 2900, 1e-9);
  ck_assert_double_eq_tol(runs[0].runs[0].launch_contexts_ns, 2800, 1e-9);
  ck_assert_msg(merge_runs(runs, 2, &base, err, sizeof err) == 0, "%s", err);
  gate_policy p = default_policy();
  comparison *c;
  char evidence[192];

  /* The probe 1.7 us slower, the kernels not: same, as measured, the probe shown. */
  probed_run("probe_alone.json", 62, 7010, 300150, 4600);
  run = load_ok("probe_alone.json");
  size_t n = compare_figures(&base, &run, &p, &c);
  ck_assert_int_eq(verdict_of(c, n, "elementwise/add/N:1"), VERDICT_SAME);
  ck_assert_int_eq(verdict_of(c, n, "elementwise/saxpy/N:1"), VERDICT_SAME);
  ck_assert_double_eq_tol(c[0].launch_probe_ns, 4500 - 2810, 1e-6); /* contexts' probe */
  ck_assert_double_eq_tol(c[1].launch_probe_ns, 4600 - 2910, 1e-6); /* first context's */
  ck_assert_double_lt(fabs(c[0].delta), 0.01);
  evidence_text(&c[0], evidence, sizeof evidence);
  ck_assert_msg(strstr(evidence, "launch probe +1.69 us") != NULL, "%s", evidence);
  free(c);
  free_figures(&run);

  /* Every kernel 1.7 us longer with the probe (a host whose launches cost more, which a testbed of
   * its own keeps apart): slower, not explained away. */
  probed_run("probe_host.json", 63, 8700, 301700, 4600);
  run = load_ok("probe_host.json");
  n = compare_figures(&base, &run, &p, &c);
  ck_assert_int_eq(verdict_of(c, n, "elementwise/add/N:1"), VERDICT_SLOWER);
  ck_assert_double_gt(c[0].delta, 0.2);
  free(c);
  free_figures(&run);

  /* A probe interrupted (10 us), a long kernel 4 % slower: slower. */
  probed_run("probe_intr.json", 64, 7000, 312000, 9900);
  run = load_ok("probe_intr.json");
  n = compare_figures(&base, &run, &p, &c);
  ck_assert_int_eq(verdict_of(c, n, "elementwise/saxpy/N:1"), VERDICT_SLOWER);
  free(c);
  free_figures(&run);

  /* A benchmark of the baseline the run did not measure: missing, whatever the probes. */
  double med[16];
  contexts_around(7000, 0.3, med, 16);
  const fake_bench only_add[1] = {{"elementwise/add/N:1", 7000}};
  write_run("probe_host_missing.json", H100, 132, 3000.0, only_add, 1, 67);
  set_contexts("probe_host_missing.json", 0, med, 16);
  set_launch("probe_host_missing.json", 4600, 4500);
  run = load_ok("probe_host_missing.json");
  n = compare_figures(&base, &run, &p, &c);
  ck_assert_int_eq(verdict_of(c, n, "elementwise/add/N:1"), VERDICT_SAME);
  ck_assert_int_eq(verdict_of(c, n, "elementwise/saxpy/N:1"), VERDICT_MISSING);
  free(c);
  free_figures(&run);

  /* A run without a probe (from before it): nothing shown. */
  probed_run("probe_host_none.json", 65, 7000, 300100, 0);
  run = load_ok("probe_host_none.json");
  n = compare_figures(&base, &run, &p, &c);
  ck_assert_int_eq(verdict_of(c, n, "elementwise/add/N:1"), VERDICT_SAME);
  ck_assert(isnan(c[0].launch_probe_ns));
  free(c);
  free_figures(&run);
  free_figures(&base);

  /* A baseline whose two runs took the same time while one's probe read 0.53 us more (the 2-GPU
   * H100 host): its noise and threshold are those of the times, the tolerance. */
  probed_run("probe_base_moved.json", 66, 7010, 300100, 3430);
  runs[0] = load_ok("probe_base0.json");
  runs[1] = load_ok("probe_base_moved.json");
  ck_assert_msg(merge_runs(runs, 2, &base, err, sizeof err) == 0, "%s", err);
  run = load_ok("probe_alone.json");
  n = compare_figures(&base, &run, &p, &c);
  ck_assert_int_eq(verdict_of(c, n, "elementwise/add/N:1"), VERDICT_SAME);
  ck_assert_msg(c[0].threshold < 0.0301, "threshold %.4f", c[0].threshold);
  free(c);
  free_figures(&run);
  free_figures(&base);

  /* A baseline with a run lacking the probe: nothing shown. */
  probed_run("probe_base_none.json", 67, 7010, 300100, 0);
  runs[0] = load_ok("probe_base0.json");
  runs[1] = load_ok("probe_base_none.json");
  ck_assert_msg(merge_runs(runs, 2, &base, err, sizeof err) == 0, "%s", err);
  run = load_ok("probe_alone.json");
  n = compare_figures(&base, &run, &p, &c);
  ck_assert(isnan(c[0].launch_probe_ns));
  free(c);
  free_figures(&run);

  /* The probe survives a bless: a baseline saved and read back keeps it per run. */
  ck_assert_msg(save_baseline(at("nvidia-h100-80gb-hbm3.json"), &base, err, sizeof err) == 0, "%s", err);
  free_figures(&base);
  ck_assert_msg(load_baseline(at("nvidia-h100-80gb-hbm3.json"), &base, err, sizeof err) == 0, "%s", err);
  ck_assert_double_eq_tol(base.runs[0].launch_first_ns + base.runs[1].launch_first_ns, 2900, 1e-9);
  free_figures(&base);

  /* A probe that is not a list of times is bad input, named. */
  probed_run("probe_bad.json", 66, 7000, 300000, 0);
  set_context("probe_bad.json", "launch_ns", json_string("fast"));
  expect_error(load_run(at("probe_bad.json"), &run, err, sizeof err), err, "field context.launch_ns");
}
END_TEST

/* context_medians and context.launch_ns hold one value per context the run measured in: a missing or short list was
 * read as one context (the samples' median) or fewer, and a one-value launch_ns as a probe measured in no other
 * context. What the runner writes loads: 16 medians of a short benchmark, 4 or none of a long one, and 1 + 16 probes
 * (1 + 4 where every benchmark is long, 1 without --contexts). */
START_TEST(medians_and_probes_match_the_contexts) {
  gate_figures f;
  char err[1024];
  double med[16], four[4] = {300000, 301000, 299000, 300500};
  contexts_around(7000, 0.1, med, 16);
  json_t *timing = json_pack("{s:i, s:f, s:i}", "contexts", 16, "contexts_below_s", 50e-6, "long_contexts", 4);
  probed_run("cm.json", 70, 7000, 300000, 2900); /* add: 16 medians; saxpy: none, long_contexts 0 */
  f = load_ok("cm.json");
  free_figures(&f);
  set_context("cm.json", "timing", json_deep_copy(timing));
  expect_error(load_run(at("cm.json"), &f, err, sizeof err), err,
               "field benchmarks[1].context_medians: missing, expected 16 (context.timing.contexts, a short "
               "benchmark) or 4 (long_contexts, a long one); a hand-edited or joined run file? Re-run the benchmark");
  set_bench("cm.json", 1, "context_medians", json_pack("[f, f, f, f]", four[0], four[1], four[2], four[3]));
  f = load_ok("cm.json");
  ck_assert_uint_eq(f.b[1].runs[0].ncontexts, 4);
  free_figures(&f);
  set_bench("cm.json", 0, "context_medians", json_pack("[f, f, f, f, f]", med[0], med[1], med[2], med[3], med[4]));
  expect_error(load_run(at("cm.json"), &f, err, sizeof err), err,
               "field benchmarks[0].context_medians: 5 medians, expected 16");
  /* Medians in a run measured in one context. */
  write_run("cm1.json", H100, 132, 3000.0, base_set, 3, 71);
  set_bench("cm1.json", 2, "context_medians", json_pack("[f, f]", 3000.0, 3000.0));
  expect_error(load_run(at("cm1.json"), &f, err, sizeof err), err,
               "field benchmarks[2].context_medians: 2 medians, expected none: the run was measured in one context");

  /* The launch probe: one value is right without --contexts, not after 16 more contexts. */
  write_run("lp1.json", H100, 132, 3000.0, base_set, 3, 72);
  set_context("lp1.json", "launch_ns", json_pack("[f]", 2900.0));
  f = load_ok("lp1.json");
  free_figures(&f);
  probed_run("lp.json", 73, 7000, 300000, 2900);
  set_context("lp.json", "launch_ns", json_pack("[f]", 2900.0));
  expect_error(load_run(at("lp.json"), &f, err, sizeof err), err,
               "field context.launch_ns: 1 value, expected 17: the first context's probe and one per CUDA context "
               "--contexts made (context.timing.contexts 16, long_contexts 0, short benchmarks)");
  expect_gate(2, "bless --baselines=%s %s", make_dir("lp_bl"), at("lp.json"));
  expect_output("field context.launch_ns: 1 value, expected 17");
  /* Every benchmark long (matmul's runs): the contexts made are the long ones, 4. */
  write_run("lp4.json", H100, 132, 3000.0, base_set, 3, 74);
  set_context("lp4.json", "timing", json_deep_copy(timing));
  for (size_t i = 0; i < 3; i++)
    set_bench("lp4.json", i, "context_medians", json_pack("[f, f, f, f]", four[0], four[1], four[2], four[3]));
  set_context("lp4.json", "launch_ns", json_pack("[f, f, f, f, f]", 2900.0, 2800.0, 2800.0, 2800.0, 2800.0));
  f = load_ok("lp4.json");
  free_figures(&f);
  set_launch("lp4.json", 2900, 2800);
  expect_error(load_run(at("lp4.json"), &f, err, sizeof err), err, "field context.launch_ns: 17 values, expected 5");
  json_decref(timing);
}
END_TEST

/* The unit of evidence is the context: a short benchmark's verdict rests on its context
 * medians, the baseline's against the run's, not on thousands of correlated samples. */
START_TEST(short_benchmarks_are_judged_on_their_contexts) {
  gate_figures runs[2], base, run;
  char err[1024];
  double med[16];
  for (int r = 0; r < 2; r++) { /* two machines, 16 contexts each */
    char name[64];
    FORMAT(name, "ctx_base%d.json", r);
    contexts_around(7000 * (1 + 0.004 * r), 0.1 + 0.3 * r, med, 16);
    context_run(name, 40 + (unsigned)r, med, 16);
    ck_assert_msg(load_run(at(name), &runs[r], err, sizeof err) == 0, "%s", err);
    ck_assert_uint_eq(runs[r].b[0].runs[0].ncontexts, 16);
    ck_assert_uint_eq(runs[r].b[1].runs[0].ncontexts, 1); /* the long one: its one context */
    ck_assert_int_eq(runs[r].runs[0].contexts, 16);
  }
  ck_assert_msg(merge_runs(runs, 2, &base, err, sizeof err) == 0, "%s", err);
  gate_policy p = default_policy();
  comparison *c;

  /* 5 % slower in all 16 contexts: slower, p far under 0.01. */
  contexts_around(7000 * 1.05, 0.7, med, 16);
  context_run("ctx_slow.json", 50, med, 16);
  ck_assert_msg(load_run(at("ctx_slow.json"), &run, err, sizeof err) == 0, "%s", err);
  size_t n = compare_figures(&base, &run, &p, &c);
  ck_assert_int_eq(verdict_of(c, n, "elementwise/add/N:1"), VERDICT_SLOWER);
  ck_assert_double_lt(c[0].p_slower, 1e-4);
  ck_assert_uint_eq(c[0].base_contexts, 32);
  ck_assert_uint_eq(c[0].run_contexts, 16);
  ck_assert_uint_eq(c[0].base_samples, 320);
  ck_assert_uint_eq(c[0].run_samples, 160);
  ck_assert_int_eq(verdict_of(c, n, "elementwise/saxpy/N:1"), VERDICT_SAME);
  free(c);
  free_figures(&run);

  /* Two contexts, 0 % and +9 %: the mean is 4.5 % slower and the 20 samples of each context
   * would pass a pooled rank test easily, but two contexts are not evidence (p > 0.01). */
  double two[2] = {7010, 7010 * 1.09};
  context_run("ctx_two.json", 51, two, 2);
  ck_assert_msg(load_run(at("ctx_two.json"), &run, err, sizeof err) == 0, "%s", err);
  n = compare_figures(&base, &run, &p, &c);
  ck_assert_double_gt(c[0].delta, 0.03);
  ck_assert_double_gt(c[0].p_slower, 0.01);
  ck_assert_int_eq(verdict_of(c, n, "elementwise/add/N:1"), VERDICT_SAME);
  free(c);
  free_figures(&run);

  /* 5 % slower, and one of the 16 contexts interrupted (2.5 times as long, as on an H100): the
   * context is set aside, so the run's mean and the test see the 5 %. Kept, it would make the
   * mean 14 % and p about 0.08: the slowdown would pass. */
  contexts_around(7000 * 1.05, 0.7, med, 16);
  med[5] *= 2.5;
  context_run("ctx_interrupted.json", 54, med, 16);
  ck_assert_msg(load_run(at("ctx_interrupted.json"), &run, err, sizeof err) == 0, "%s", err);
  n = compare_figures(&base, &run, &p, &c);
  ck_assert_int_eq(verdict_of(c, n, "elementwise/add/N:1"), VERDICT_SLOWER);
  ck_assert_double_lt(fabs(c[0].delta - 0.05), 0.01);
  ck_assert_uint_eq(c[0].run_set_aside, 1);
  ck_assert_uint_eq(c[0].run_contexts, 15);
  ck_assert_uint_eq(c[0].base_set_aside, 0);
  char ev[128];
  evidence_text(&c[0], ev, sizeof ev);
  ck_assert_msg(strstr(ev, "set aside 0/1 ctx") != NULL, "%s", ev);
  free(c);
  free_figures(&run);

  /* Unchanged but for one interrupted context: same, and the delta is the kept contexts'. */
  contexts_around(7000, 0.55, med, 16);
  med[9] *= 1.7;
  context_run("ctx_interrupted_same.json", 55, med, 16);
  ck_assert_msg(load_run(at("ctx_interrupted_same.json"), &run, err, sizeof err) == 0, "%s", err);
  n = compare_figures(&base, &run, &p, &c);
  ck_assert_int_eq(verdict_of(c, n, "elementwise/add/N:1"), VERDICT_SAME);
  ck_assert_double_lt(fabs(c[0].delta), 0.01);
  ck_assert_uint_eq(c[0].run_set_aside, 1);
  free(c);
  free_figures(&run);

  /* Unchanged, a fresh draw of contexts: same. */
  contexts_around(7000, 0.55, med, 16);
  context_run("ctx_same.json", 52, med, 16);
  ck_assert_msg(load_run(at("ctx_same.json"), &run, err, sizeof err) == 0, "%s", err);
  n = compare_figures(&base, &run, &p, &c);
  ck_assert_int_eq(verdict_of(c, n, "elementwise/add/N:1"), VERDICT_SAME);
  ck_assert_double_lt(fabs(c[0].delta), 0.01);
  free(c);
  free_figures(&run);

  /* A run measured in one context is not compared with a baseline measured in 16. */
  const fake_bench one[2] = {{"elementwise/add/N:1", 7000}, {"elementwise/saxpy/N:1", 300000}};
  write_run("ctx_one.json", H100, 132, 3000.0, one, 2, 53);
  ck_assert_msg(load_run(at("ctx_one.json"), &run, err, sizeof err) == 0, "%s", err);
  expect_error(same_method(&base, &run, err, sizeof err), err, "field runs[0].contexts differs");
  /* A run file without contexts_below_s (made before --contexts) is named as such, not "under 0 us". */
  expect_error(same_method(&base, &run, err, sizeof err), err,
               "with short benchmarks (under 50 us) in 16 CUDA contexts, this run in one context per run (a run made "
               "before --contexts)");
  ck_assert_msg(!strstr(err, "under 0 us"), "%s", err);
  gate_figures pair[2] = {runs[0], run}, merged;
  expect_error(merge_runs(pair, 2, &merged, err, sizeof err), err,
               "run 2 was measured in one context per run (a run made before --contexts) and run 1 with short "
               "benchmarks (under 50 us) in 16 CUDA contexts");
  ck_assert_msg(!strstr(err, "under 0 us"), "%s", err);
  free_figures(&run);

  /* The contexts survive a baseline's save and load. */
  ck_assert_msg(save_baseline(at("nvidia-h100-80gb-hbm3.json"), &base, err, sizeof err) == 0, "%s", err);
  gate_figures again;
  ck_assert_msg(load_baseline(at("nvidia-h100-80gb-hbm3.json"), &again, err, sizeof err) == 0, "%s", err);
  ck_assert_uint_eq(again.b[0].runs[1].ncontexts, 16);
  ck_assert_double_eq_tol(again.b[0].runs[1].contexts_ns[3], base.b[0].runs[1].contexts_ns[3], 1e-3);
  ck_assert_int_eq(again.runs[1].contexts, 16);
  /* It stores no samples (format 3: nothing reads them), and says how many there were. */
  ck_assert_uint_eq(again.b[0].runs[1].nsamples, 0);
  ck_assert_uint_eq(again.b[0].runs[1].samples_taken, 160);
  free_figures(&again);
  /* A version 2 file, which kept 64 quantiles of the samples, is read; versions 1 and 4 are refused. */
  json_error_t jerr;
  json_t *doc = json_load_file(at("nvidia-h100-80gb-hbm3.json"), 0, &jerr);
  ck_assert_ptr_nonnull(doc);
  json_object_set_new(doc, "schema_version", json_integer(2));
  json_t *m = json_array_get(json_object_get(json_array_get(json_object_get(doc, "benchmarks"), 0), "runs"), 1);
  json_object_set_new(m, "samples_ns", json_pack("[f, f, f]", 7000.0, 7010.0, 7020.0));
  ck_assert_int_eq(json_dump_file(doc, at("nvidia-h100-80gb-hbm3.json"), 0), 0);
  ck_assert_msg(load_baseline(at("nvidia-h100-80gb-hbm3.json"), &again, err, sizeof err) == 0, "%s", err);
  ck_assert_uint_eq(again.b[0].runs[1].nsamples, 3);
  ck_assert_uint_eq(again.b[0].runs[1].samples_taken, 160);
  free_figures(&again);
  for (int v = 1; v <= 4; v += 3) {
    json_object_set_new(doc, "schema_version", json_integer(v));
    ck_assert_int_eq(json_dump_file(doc, at("nvidia-h100-80gb-hbm3.json"), 0), 0);
    expect_error(load_baseline(at("nvidia-h100-80gb-hbm3.json"), &again, err, sizeof err), err,
                 "this gate reads versions 2 to 3");
  }
  json_decref(doc);
  for (int r = 0; r < 2; r++) free_figures(&runs[r]);
  free_figures(&base);
}
END_TEST

/* Which contexts are set aside: far outliers only, and only with 4 or more contexts. */
START_TEST(interrupted_contexts_are_set_aside) {
  double v[16], kept[16];
  for (int i = 0; i < 16; i++) v[i] = 7000 + 30 * (i % 5); /* spread about 0.6 % */
  ck_assert_uint_eq(kept_contexts(v, 16, kept), 16);
  ck_assert_double_eq(kept[3], v[3]); /* in their order */
  v[4] = 7000 * 2.5;                  /* interrupted: 2.5 times as long */
  v[11] = 7000 * 0.5;                 /* and one half as long */
  ck_assert_uint_eq(kept_contexts(v, 16, kept), 14);
  for (int i = 0; i < 14; i++) ck_assert_double_lt(fabs(kept[i] - 7060), 100);
  v[4] = 7000 * 1.08; /* 8 %: the heavy tail of the ordinary spread, kept */
  ck_assert_uint_eq(kept_contexts(v, 16, kept), 15);
  v[4] = 7000 * 1.12; /* 12 %: set aside */
  ck_assert_uint_eq(kept_contexts(v, 16, kept), 14);
  /* More than one in eight far out is a pattern, not interruptions: all kept (OUTLIER_CAP). */
  double some[16];
  for (int i = 0; i < 16; i++) some[i] = 7000 + 30 * (i % 5);
  for (int i = 0; i < 7; i++) some[2 * i] *= 1.5; /* 7 of 16 at +50 % */
  ck_assert_uint_eq(kept_contexts(some, 16, kept), 16);
  ck_assert_double_eq(kept[0], some[0]);
  some[2] = some[6] = some[8] = some[10] = some[12] = 7000; /* 2 of 16: interruptions */
  ck_assert_uint_eq(kept_contexts(some, 16, kept), 14);
  some[2] = 7000 * 1.5; /* 3 of 16 */
  ck_assert_uint_eq(kept_contexts(some, 16, kept), 16);
  /* A long benchmark's four contexts (an H100's dot/tree_host_finish 2^24): the interrupted one
   * goes; two of four far from the other two are a spread, not an outlier: all kept. */
  double four[4] = {71056, 106112, 71408, 71216};
  ck_assert_uint_eq(kept_contexts(four, 4, kept), 3);
  ck_assert_double_eq(kept[1], 71408);
  /* ... and one 15.8 % slower (an H100's matmul/cublas 1024^3, 2026-11-25): kept, it made the
   * run +3.87 % where the others were +0.3 %. */
  double cublas[4] = {61568, 61280, 71152, 60928};
  ck_assert_uint_eq(kept_contexts(cublas, 4, kept), 3);
  ck_assert_double_eq(kept[2], 60928);
  double two_and_two[4] = {71056, 106112, 107408, 71216};
  ck_assert_uint_eq(kept_contexts(two_and_two, 4, kept), 4);
  /* Three contexts: too few to tell an outlier, all kept. */
  double three[3] = {7000, 7010, 20000};
  ck_assert_uint_eq(kept_contexts(three, 3, kept), 3);
  /* A wide spread (a kernel that finishes on the host): 5 scaled MADs, beyond 10 %, decide. */
  double wide[8] = {7000, 8000, 9000, 7500, 8500, 6500, 9500, 10500};
  ck_assert_uint_eq(kept_contexts(wide, 8, kept), 8);
}
END_TEST

int main(int argc, char **argv) {
  if (test_setup(argc, argv)) return 2;
  Suite *s = suite_create("gate_contexts");
  TCase *tc = tcase_create("contexts");
  tcase_set_timeout(tc, 30);
  tcase_add_test(tc, some_slow_contexts_of_a_long_benchmark_are_slower);
  tcase_add_test(tc, short_benchmarks_are_judged_on_their_contexts);
  tcase_add_test(tc, the_launch_probe_is_shown_not_taken_off);
  tcase_add_test(tc, interrupted_contexts_are_set_aside);
  tcase_add_test(tc, medians_and_probes_match_the_contexts);
  suite_add_tcase(s, tc);
  return run_suite(s);
}
