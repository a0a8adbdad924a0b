/* CPU tests of the gate binary on generated run files: gate check with a stand-in benchmark, a slower verdict
 * confirmed or not by the re-measurement; the exit codes of compare, history and bless (0 pass, 1 regression, 2 bad
 * input or usage). */
#define _GNU_SOURCE
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "perf/gate/figures.h"
#include "perf/gate/testutil.h"
#include "tests/support/check_run.h"

/* gate check end to end, with a stand-in benchmark binary that writes prepared
 * run files: the first run, and another for the re-measurement (its output is <bench>.recheck.json;
 * it measures the suspects alone, so BENCH_ARGS refuses one without --benchmark_filter). */
static int run_check(const char *out_dir, const char *run, const char *recheck, const char *extra) {
  char bench[1024], args[4096];
  FORMAT(bench, "%s/fake_bench", dir);
  FILE *f = fopen(bench, "w");
  ck_assert_ptr_nonnull(f);
  fprintf(f, "#!/bin/sh\n%sif [ -n \"$again\" ]; then cp '%s' \"$out\"; else cp '%s' \"$out\"; fi\n", BENCH_ARGS,
          recheck, run);
  fclose(f);
  chmod(bench, 0755);
  char mk[1100];
  FORMAT(mk, "mkdir -p %s", out_dir);
  ck_assert_int_eq(system(mk), 0);
  FORMAT(args, "check --bench=%s --baselines=%s/bl --out_dir=%s %s", bench, dir, out_dir, extra);
  return run_gate(args);
}

START_TEST(check_end_to_end) {
  char err[1024], out[1024], path[1200];
  const fake_bench slow[] = {
      {"elementwise/add/N:1", 1000 * 1.2}, {"elementwise/add_float4/N:1", 2000}, {"elementwise/saxpy/N:1", 3000}};
  write_run("e2e_ok.json", H100, 132, 3000.0, base_set, 3, 71);
  write_run("e2e_slow.json", H100, 132, 3000.0, slow, 3, 72);
  char mk[1100];
  FORMAT(mk, "mkdir -p %s/bl", dir);
  ck_assert_int_eq(system(mk), 0);
  /* No baseline for this GPU: passes with a candidate written; --strict fails. */
  FORMAT(out, "%s/e2e_none", dir);
  ck_assert_int_eq(run_check(out, at("e2e_ok.json"), at("e2e_ok.json"), ""), 0);
  FORMAT(path, "%s/nvidia-h100-80gb-hbm3.candidate.json", out);
  ck_assert_int_eq(access(path, R_OK), 0);
  FORMAT(path, "%s/summary.md", out); /* where the job's summary and a soak look */
  ck_assert(file_has(path, "NOT JUDGED (no baseline of this GPU yet)"));
  ck_assert(file_has(path, "3 benchmark(s) measured, nothing compared"));
  ck_assert_int_eq(run_check(out, at("e2e_ok.json"), at("e2e_ok.json"), "--strict"), 1);
  /* With a baseline: same passes and writes its reports. */
  gate_figures base;
  make_baseline(&base);
  FORMAT(path, "%s/bl/nvidia-h100-80gb-hbm3.json", dir);
  ck_assert(save_baseline(path, &base, err, sizeof err) == 0);
  free_figures(&base);
  FORMAT(out, "%s/e2e_same", dir);
  ck_assert_int_eq(run_check(out, at("e2e_ok.json"), at("e2e_ok.json"), "--min_delta_us=0"), 0);
  FORMAT(path, "%s/verdicts.json", out);
  ck_assert(file_has(path, "\"same\""));
  FORMAT(path, "%s/summary.md", out);
  ck_assert(file_has(path, "passed"));
  /* Slower, and confirmed by the re-measurement: fails. */
  FORMAT(out, "%s/e2e_slow", dir);
  ck_assert_int_eq(run_check(out, at("e2e_slow.json"), at("e2e_slow.json"), "--min_delta_us=0"), 1);
  FORMAT(path, "%s/summary.md", out);
  ck_assert(file_has(path, "confirmed"));
  ck_assert(file_has(path, "FAILED"));
  FORMAT(path, "%s/fake_bench.json", out); /* the failing run's data is kept */
  ck_assert_int_eq(access(path, R_OK), 0);
  /* Slower once, not on re-measurement: passes, and says so. */
  FORMAT(out, "%s/e2e_hiccup", dir);
  ck_assert_int_eq(run_check(out, at("e2e_slow.json"), at("e2e_ok.json"), "--min_delta_us=0"), 0);
  FORMAT(path, "%s/summary.md", out);
  ck_assert(file_has(path, "not confirmed"));
}
END_TEST

START_TEST(gate_exit_codes) {
  gate_figures base;
  char err[1024], args[2048];
  make_baseline(&base);
  ck_assert(save_baseline(at("nvidia-h100-80gb-hbm3.json"), &base, err, sizeof err) == 0);
  free_figures(&base);
  write_run("ok.json", H100, 132, 3000.0, base_set, 3, 42);
  fake_bench slow[3];
  memcpy(slow, base_set, sizeof slow);
  slow[1].time_ns *= 1.10;
  write_run("regressed.json", H100, 132, 3000.0, slow, 3, 43);
  FORMAT(args, "compare --baseline=%s %s", at("nvidia-h100-80gb-hbm3.json"), at("ok.json"));
  ck_assert_int_eq(run_gate(args), 0);
  FORMAT(args, "compare --min_delta_us=0 --baseline=%s %s", at("nvidia-h100-80gb-hbm3.json"), at("regressed.json"));
  ck_assert_int_eq(run_gate(args), 1);
  /* The default 3 us floor: a 10% change of a 2 us kernel is launch jitter, not a regression. */
  FORMAT(args, "compare --baseline=%s %s", at("nvidia-h100-80gb-hbm3.json"), at("regressed.json"));
  ck_assert_int_eq(run_gate(args), 0);
  FORMAT(args, "compare --baseline=%s %s", at("nvidia-h100-80gb-hbm3.json"), at("truncated.json"));
  write_text("truncated.json", "{");
  ck_assert_int_eq(run_gate(args), 2);
  ck_assert_int_eq(run_gate("compare --tolerance=7"), 2);
  ck_assert_int_eq(run_gate("frobnicate"), 2);
  /* history: appends one row per benchmark, creates the folder, never rewrites earlier rows */
  write_text("verdicts_ok.json",
             "{\"metric\": \"time\", \"gpu\": {\"name\": \"NVIDIA H100 80GB HBM3\", \"uuid\": "
             "\"GPU-fixture-0001\"}, \"run\": {\"date\": \"2026-11-22T00:00:42+00:00\", \"host\": "
             "\"gpu-host-1\", \"commit\": \"unknown\"}, \"verdicts\": [{\"name\": "
             "\"elementwise/add/N:1\", \"verdict\": \"same\"}, {\"name\": \"elementwise/add_float4/N:1\", "
             "\"verdict\": \"faster\"}, {\"name\": \"elementwise/saxpy/N:1\", \"verdict\": \"same\"}]}");
  FORMAT(args, "history --history_dir=%s/hist --verdicts=%s %s", dir, at("verdicts_ok.json"), at("ok.json"));
  ck_assert_int_eq(run_gate(args), 0);
  ck_assert_int_eq(run_gate(args), 2); /* the same run again: appended once */
  char cmd[2048];
  FORMAT(cmd,
         "test $(wc -l < %s/hist/nvidia-h100-80gb-hbm3.csv) -eq 4 && "
         "head -1 %s/hist/nvidia-h100-80gb-hbm3.csv | grep -qx 'date,commit,gpu,benchmark,median_ns,"
         "bytes_per_second,noise,verdict,l2_flush,threshold,testbed' && "
         "grep -c ',elementwise/add/N:1,.*,same,write,,$' %s/hist/nvidia-h100-80gb-hbm3.csv | grep -qx 1 && "
         "grep -c ',faster,write,,$' %s/hist/nvidia-h100-80gb-hbm3.csv | grep -qx 1",
         dir, dir, dir, dir);
  ck_assert_int_eq(system(cmd), 0);
  FORMAT(args, "history --history_dir=%s/hist --verdicts=%s %s", dir, at("truncated.json"), at("ok.json"));
  ck_assert_int_eq(run_gate(args), 2);
  /* bless refuses nothing valid and writes the file named after the GPU */
  FORMAT(args, "bless --baselines=%s %s %s", dir, at("ok.json"), at("regressed.json"));
  ck_assert_int_eq(run_gate(args), 0);
  ck_assert_int_eq(access(at("nvidia-h100-80gb-hbm3.json"), R_OK), 0);
}
END_TEST

int main(int argc, char **argv) {
  if (test_setup(argc, argv)) return 2;
  Suite *s = suite_create("gate_end_to_end");
  TCase *tc = tcase_create("end_to_end");
  tcase_set_timeout(tc, 30);
  tcase_add_test(tc, check_end_to_end);
  tcase_add_test(tc, gate_exit_codes);
  suite_add_tcase(s, tc);
  return run_suite(s);
}
