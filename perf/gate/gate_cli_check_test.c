/* CPU tests of gate check and gate compare end to end: what verdicts.json and summary.md say, a family not in the
 * baseline, stale outputs never judged, a run re-judged with its re-measure, a benchmark that dies with the gate,
 * failed writes, and --warmup. */
#define _GNU_SOURCE
#include <check.h>
#include <errno.h>
#include <jansson.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "perf/gate/figures.h"
#include "perf/gate/testutil.h"
#include "perf/gate/verdict_fields.h"
#include "tests/support/check_run.h"

/* verdicts.json names the GPU and the run it judged (plots/ and gate history read them). */
START_TEST(verdicts_name_their_gpu_and_run) {
  const char *bl = baseline_dir("named/bl");
  write_run("named/run.json", H100, 132, 3000.0, base_set, 3, 4);
  set_context("named/run.json", "commit", json_string("0123abcd4567"));
  const char *bench = copy_bench("named/fake_bench", at("named/run.json"), at("named/run.json"));
  expect_gate(0, "check --bench=%s --baselines=%s --out_dir=%s", bench, bl, at("named"));
  json_error_t jerr;
  json_t *v = json_load_file(at("named/verdicts.json"), 0, &jerr);
  ck_assert_msg(v != NULL, "%s", jerr.text);
  ck_assert_str_eq(json_string_value(json_object_get(v, "metric")), "time");
  ck_assert_uint_eq(json_array_size(json_object_get(v, "verdicts")), 3);
  json_t *g = json_object_get(v, "gpu"), *r = json_object_get(v, "run");
  ck_assert_uint_eq(json_object_size(g), 2);
  ck_assert_str_eq(json_string_value(json_object_get(g, "name")), "NVIDIA H100 80GB HBM3");
  ck_assert_str_eq(json_string_value(json_object_get(g, "uuid")), "GPU-fixture-0004");
  ck_assert_uint_eq(json_object_size(r), 3);
  ck_assert_str_eq(json_string_value(json_object_get(r, "date")), "2026-11-22T00:00:04+00:00");
  ck_assert_str_eq(json_string_value(json_object_get(r, "host")), "gpu-host-1");
  ck_assert_str_eq(json_string_value(json_object_get(r, "commit")), "0123abcd4567");
  json_decref(v);
}
END_TEST

/* summary.md's column headers (ci/soak.sh --summarize reads the columns by them) and its legend come from the
 * gate's table of fields (verdict_fields.c), which the HTML report's legend prints from too. */
START_TEST(summary_headers_and_legend_are_the_field_table) {
  const char *bl = baseline_dir("legend/bl");
  write_run("legend/run.json", H100, 132, 3000.0, base_set, 3, 4);
  expect_gate(0, "compare --baselines=%s --out_dir=%s %s", bl, at("legend"), at("legend/run.json"));
  const char *md = file_text(at("legend/summary.md"));
  ck_assert(strstr(md,
                   "\n| Benchmark | Baseline (us) | New (us) | Delta | Allowed | p | GB/s | of copy | Evidence | "
                   "Verdict |\n|---|---:|---:|---:|---:|---:|---:|---:|---|---|\n") != NULL);
  static const field_id kLegend[] = {FIELD_DELTA, FIELD_P, FIELD_TIMES, FIELD_EVIDENCE};
  char legend[4096];
  field_legend(kLegend, 4, legend, sizeof legend);
  ck_assert_msg(strstr(md, legend) != NULL, "summary.md lacks the legend %s", legend);
  ck_assert(strncmp(legend, "Delta: positive is slower; the run's mean of context medians against", 68) == 0);
  ck_assert(strstr(legend, "within 0.2 % of this run's") != NULL); /* KIND_COPY_WINDOW */
  ck_assert(strstr(legend,
                   "). p: one-sided test on the contexts' medians (slower for a positive delta, faster for a "
                   "negative one). Times are as measured. Evidence: contexts/samples, baseline vs new; ") != NULL);
}
END_TEST

/* A '|' in a benchmark name is written '\|' in summary.md: every row of its table keeps the
 * header's columns (ci/soak.sh --summarize reads them by position). */
START_TEST(a_pipe_in_a_name_keeps_the_summary_table) {
  const char *bl = make_dir("pipe/bl");
  static const fake_bench piped[2] = {{"elementwise/a|b/N:1", 100e3}, {"elementwise/saxpy/N:1", 300e3}};
  for (unsigned r = 0; r < 3; r++) {
    char name[64];
    FORMAT(name, "pipe/base%u.json", r);
    write_run(name, H100, 132, 3000.0, piped, 2, 120 + r);
  }
  expect_gate(0, "bless --baselines=%s %s %s %s", bl, at("pipe/base0.json"), at("pipe/base1.json"),
              at("pipe/base2.json"));
  fake_bench slow[2] = {piped[0], piped[1]};
  slow[0].time_ns *= 1.10;
  write_run("pipe/run.json", H100, 132, 3000.0, slow, 2, 123);
  expect_gate(1, "compare --baselines=%s --out_dir=%s %s", bl, at("pipe"), at("pipe/run.json"));
  FILE *f = fopen(at("pipe/summary.md"), "r");
  ck_assert_ptr_nonnull(f);
  char line[4096];
  int header = -1, rows = 0, named = 0;
  while (fgets(line, sizeof line, f)) {
    if (line[0] != '|') continue;
    int pipes = 0;
    for (const char *p = line; *p; p++) pipes += *p == '|' && (p == line || p[-1] != '\\');
    if (header < 0) header = pipes;
    ck_assert_msg(pipes == header, "a row of summary.md has %d columns' bars, the header %d: %s", pipes, header, line);
    rows++;
    named += strstr(line, "`elementwise/a\\|b/N:1`") != NULL && strstr(line, "**slower**") != NULL;
  }
  fclose(f);
  ck_assert_int_eq(rows, 4); /* header, rule, two benchmarks */
  ck_assert_int_eq(named, 1);
}
END_TEST

/* A slower library reference never fails. summary.md says the environment changed when it was read against this
 * GPU's own runs, and "their difference or the environment" against other GPUs, even of its GPU kind: of four H200s,
 * two whose copy probes agree within 0.2 % read cuBLAS TF32 1024^3 6 % apart (docs/RESULTS.md, 2026-11-28). The
 * baseline: GPU-lib (2 runs) and GPU-fixture-0012, all of copy 3000. */
START_TEST(a_slower_library_reference_says_what_it_was_read_against) {
  const char *bl = make_dir("libref/bl");
  write_base_runs("libref", "base", 3, 10);
  set_gpu_uuid("libref/base0.json", "GPU-lib");
  set_gpu_uuid("libref/base1.json", "GPU-lib");
  expect_gate(0, "bless --baselines=%s %s %s %s", bl, at("libref/base0.json"), at("libref/base1.json"),
              at("libref/base2.json"));
  static const struct {
    const char *uuid; /* NULL: a GPU of its own */
    double copy;
    const char *says, *not_says;
  } cases[] = {
      {"GPU-lib", 3000.0, "\n**Environment changed:** `elementwise/saxpy/N:1` +", "other GPUs"},
      {NULL, 3000.0, "\n**Library references slower than the baseline's other GPUs:** `elementwise/saxpy/N:1` +",
       "Environment changed"}, /* its GPU kind */
      {NULL, 3100.0, "\n**Library references slower than the baseline's other GPUs:** `elementwise/saxpy/N:1` +",
       "Environment changed"}, /* another kind */
  };
  for (unsigned i = 0; i < 3; i++) {
    fake_bench slow[3] = {base_set[0], base_set[1], base_set[2]};
    slow[2].time_ns *= 1.30; /* saxpy, 3 us: +0.9 us is above the 0.25 us floor, and plain against 2 contexts */
    write_run("libref/run.json", H100, 132, cases[i].copy, slow, 3, 200 + i);
    if (cases[i].uuid) set_gpu_uuid("libref/run.json", cases[i].uuid);
    set_bench("libref/run.json", 2, "label", json_string("reference"));
    expect_gate(0, "compare --baselines=%s --out_dir=%s %s", bl, at("libref"), at("libref/run.json"));
    const char *md = file_text(at("libref/summary.md"));
    ck_assert_msg(strstr(md, cases[i].says) != NULL, "case %u: %.1500s", i, md);
    ck_assert_msg(strstr(md, cases[i].not_says) == NULL, "case %u: %.1500s", i, md);
    ck_assert_msg(strstr(md, ": passed\n") != NULL, "case %u: %.300s", i, md);
  }
}
END_TEST

/* A family renamed, or never blessed, has none of its benchmarks in the baseline: every verdict is
 * "new" and nothing is compared. That is said loudly, on stderr and at the top of summary.md, naming
 * the family, the baseline and the fix, and fails with --strict, by gate check and gate compare alike; a run
 * with only some new benchmarks says how many are not gated. */
START_TEST(a_family_not_in_the_baseline_is_said) {
  const char *bl = baseline_dir("renamed/bl"), *out = make_dir("renamed/out");
  const fake_bench renamed[] = {
      {"elemwise/add/N:1", 1000}, {"elemwise/add_float4/N:1", 2000}, {"elemwise/saxpy/N:1", 3000}};
  write_run("renamed/run.json", H100, 132, 3000.0, renamed, 3, 21);
  const char *bench = copy_bench("renamed/fake_bench", at("renamed/run.json"), at("renamed/run.json"));
  expect_gate(0, "check --bench=%s --baselines=%s --out_dir=%s", bench, bl, out);
  expect_output("WARNING: none of fake_bench's 3 benchmarks (family elemwise) is in the baseline ");
  expect_output("renamed/bl/nvidia-h100-80gb-hbm3.json: all are new, nothing was compared");
  expect_output("ci/bless.sh --only='^elemwise/' ARTIFACTS_DIR...");
  expect_output("a renamed family: re-bless it");
  char md[1200];
  FORMAT(md, "%s", at("renamed/out/summary.md"));
  ck_assert(file_has(md, "ci/bless.sh --only=.^elemwise/. ARTIFACTS_DIR"));
  FILE *f = fopen(md, "r");
  char first[64] = "";
  ck_assert_ptr_nonnull(f);
  ck_assert_ptr_nonnull(fgets(first, sizeof first, f));
  fclose(f);
  ck_assert_msg(strncmp(first, "**WARNING: none of fake_bench's 3 benchmarks", 44) == 0, "summary.md begins: %s",
                first);
  expect_output("With --strict it would fail.");
  expect_gate(1, "check --bench=%s --baselines=%s --out_dir=%s --strict", bench, bl, out);
  expect_output("WARNING: none of fake_bench's 3 benchmarks");
  expect_output("With --strict this fails.");
  expect_output("FAIL: 3 benchmarks, 0 compared");
  ck_assert(file_has(at("renamed/out/summary.md"), "With --strict this fails."));
  /* gate compare of that run says it alike, and fails with --strict. */
  const char *cmp = make_dir("renamed/compare");
  expect_gate(0, "compare --baselines=%s --out_dir=%s %s", bl, cmp, at("renamed/run.json"));
  expect_output("WARNING: none of run's 3 benchmarks (family elemwise) is in the baseline ");
  ck_assert(strncmp(file_text(at("renamed/compare/summary.md")), "**WARNING: none of run's 3 benchmarks", 37) == 0);
  expect_gate(1, "compare --strict --baselines=%s --out_dir=%s %s", bl, cmp, at("renamed/run.json"));
  expect_output("With --strict this fails.");
  /* One new benchmark among compared ones: no warning, the PASS line says how many are not gated. */
  const fake_bench more[] = {base_set[0], base_set[1], base_set[2], {"elementwise/add_vec8/N:1", 1500}};
  write_run("renamed/more.json", H100, 132, 3000.0, more, 4, 22);
  bench = copy_bench("renamed/fake_bench", at("renamed/more.json"), at("renamed/more.json"));
  expect_gate(0, "check --bench=%s --baselines=%s --out_dir=%s --strict", bench, bl, out);
  expect_output("1 new (1 of 4 not in the baseline: not gated)");
  ck_assert_msg(!strstr(gate_output, "WARNING"), "%s", gate_output);
  ck_assert(!file_has(at("renamed/out/summary.md"), "WARNING"));
}
END_TEST

/* base_set with elementwise/add 20 % slower. */
static const fake_bench slow[] = {
    {"elementwise/add/N:1", 1000 * 1.2}, {"elementwise/add_float4/N:1", 2000}, {"elementwise/saxpy/N:1", 3000}};

/* A run of a testbed that the baseline has no run of: nothing is compared, and gate compare says NOT JUDGED as gate
 * check does (on stderr and as summary.md, no verdicts.json) and fails with --strict; it used to pass silently with
 * every verdict "new". */
START_TEST(compare_of_a_testbed_without_baseline_runs_is_not_judged) {
  const char *bl = baseline_dir("tb/bl"), *out = make_dir("tb/out"); /* runs of no testbed */
  write_run("tb/run.json", H100, 132, 3000.0, base_set, 3, 31);
  set_context("tb/run.json", "testbed", json_string("tb new"));
  write_text("tb/out/verdicts.json", "{}\n"); /* an earlier compare's */
  expect_gate(0, "compare --baselines=%s --out_dir=%s %s", bl, out, at("tb/run.json"));
  expect_output("NOT JUDGED: ");
  expect_output("has no run of this testbed, 'tb new', and no base revision was given: nothing was compared");
  expect_output("With --strict it would fail.");
  ck_assert(file_has(at("tb/out/summary.md"), "NOT JUDGED (no baseline of this testbed, no base revision)"));
  ck_assert_int_ne(access(at("tb/out/verdicts.json"), F_OK), 0);
  expect_gate(1, "compare --strict --baselines=%s --out_dir=%s %s", bl, out, at("tb/run.json"));
  expect_output("With --strict this fails.");
  ck_assert(file_has(at("tb/out/summary.md"), "With --strict this fails."));
  /* gate check alike (its wording is the same). */
  const char *bench = copy_bench("tb/fake_bench", at("tb/run.json"), at("tb/run.json"));
  expect_gate(1, "check --strict --bench=%s --baselines=%s --out_dir=%s", bench, bl, out);
  expect_output("has no run of this testbed, 'tb new', and no base revision was given: nothing was compared");
  expect_output("With --strict this fails.");
}
END_TEST

/* A --family_tolerance of a family that neither the run nor its GPU's baseline has applies to nothing (a typo):
 * gate compare and gate check warn of it, naming it, and go on, since ci/gate.sh gives every perf test (a family's
 * run) every family's tolerance. One of the run's family, or of another family of the baseline (a file, or a folder
 * of a file per family), is not warned of. */
START_TEST(a_family_tolerance_of_no_family_is_warned_of) {
  const fake_bench two[] = {
      {"copy/copy_float4/N:1", 1500}, {"elementwise/add/N:1", 1000}, {"elementwise/add_float4/N:1", 2000}};
  const char *bl = make_dir("famtol/bl");
  bless_three_runs(bl, "famtol", two, 3, 80);
  write_run("famtol/run.json", H100, 132, 3000.0, two + 1, 2, 84); /* elementwise alone, as its perf test's */
  const char *run = strdup(at("famtol/run.json"));
  for (int per_family = 0; per_family < 2; per_family++) {
    expect_gate(0, "compare --baselines=%s --family_tolerance=elementwise=0.1 --family_tolerance=copy=0.2 %s", bl, run);
    ck_assert_msg(!strstr(gate_output, "warning: --family_tolerance"), "%s", gate_output);
    expect_gate(0, "compare --baselines=%s --family_tolerance=elementwize=0.1 %s", bl, run);
    expect_output("warning: --family_tolerance=elementwize=0.1: neither the run nor the baseline ");
    expect_output("has a benchmark of family 'elementwize', so it applies to nothing here");
    if (!per_family) expect_gate(0, "migrate --per_family %s/nvidia-h100-80gb-hbm3.json", bl);
  }
  const char *bench = copy_bench("famtol/fake_bench", run, run);
  expect_gate(0, "check --bench=%s --baselines=%s --out_dir=%s --family_tolerance=copy=0.2", bench, bl,
              make_dir("famtol/out"));
  ck_assert_msg(!strstr(gate_output, "warning: --family_tolerance"), "%s", gate_output);
  expect_gate(0, "check --bench=%s --baselines=%s --out_dir=%s --family_tolerance=elementwize=0.1", bench, bl,
              at("famtol/out"));
  expect_output("warning: --family_tolerance=elementwize=0.1: neither the run nor the baseline ");
}
END_TEST

/* A benchmark that exits 0 without writing the run JSON (--benchmark_list_tests, or its
 * own --benchmark_out) must not be judged by a stale file of an earlier gate check. */
START_TEST(stale_outputs_are_never_judged) {
  const char *bl = baseline_dir("stale/bl"), *out = make_dir("stale/out");
  write_run("stale/slow.json", H100, 132, 3000.0, slow, 3, 9);
  write_run("stale/ok.json", H100, 132, 3000.0, base_set, 3, 10);
  const char *bench = copy_bench("stale/fake_bench", at("stale/slow.json"), at("stale/slow.json"));
  expect_gate(1, "check --bench=%s --baselines=%s --out_dir=%s --min_delta_us=0", bench, bl, out);
  const char *outputs[] = {"stale/out/fake_bench.json", "stale/out/fake_bench.recheck.json", "stale/out/verdicts.json",
                           "stale/out/summary.md"};
  for (size_t i = 0; i < 4; i++) ck_assert_msg(access(at(outputs[i]), F_OK) == 0, "%s", outputs[i]);
  /* Now it lists its benchmarks and writes no run JSON. */
  char body[2048];
  FORMAT(body,
         "case \"$args\" in *--benchmark_list_tests*) echo elementwise/add/N:1; exit 0;; esac\n"
         "touch '%s'; cp '%s' \"$out\"\n",
         at("stale/ran"), at("stale/ok.json"));
  make_bench("stale/fake_bench", body);
  expect_gate(2, "check --bench=%s --baselines=%s --out_dir=%s --min_delta_us=0 -- --benchmark_list_tests", bench, bl,
              out);
  expect_output("wrote no run JSON");
  for (size_t i = 0; i < 4; i++) ck_assert_msg(access(at(outputs[i]), F_OK) != 0, "%s is left", outputs[i]);
  /* The gate sets --benchmark_out and its format: the benchmark's own are refused before it runs. */
  const char *theirs[] = {"--benchmark_out=/tmp/elsewhere.json", "--benchmark_out_format=csv",
                          "--benchmark_out /tmp/elsewhere.json"};
  for (size_t i = 0; i < 3; i++) {
    expect_gate(2, "check --bench=%s --baselines=%s --out_dir=%s -- %s", bench, bl, out, theirs[i]);
    expect_output("the gate sets it");
  }
  ck_assert_int_ne(access(at("stale/ran"), F_OK), 0);
  /* A re-measurement that writes nothing is not judged by the last one's file either. */
  bench = copy_bench("stale/fake_bench", at("stale/slow.json"), at("stale/slow.json"));
  expect_gate(1, "check --bench=%s --baselines=%s --out_dir=%s --min_delta_us=0", bench, bl, out);
  FORMAT(body, "[ -n \"$again\" ] && exit 0; cp '%s' \"$out\"\n", at("stale/slow.json"));
  make_bench("stale/fake_bench", body);
  expect_gate(2, "check --bench=%s --baselines=%s --out_dir=%s --min_delta_us=0", bench, bl, out);
  expect_output("wrote no run JSON");
  expect_output("fake_bench.recheck.json");
}
END_TEST

/* gate compare re-judges a run already measured (ci/soak.sh --rejudge): the re-measure gate check
 * wrote beside it must confirm a slower verdict, as in gate check, and --out_dir gets the reports. */
START_TEST(compare_rejudges_a_run_with_its_re_measure) {
  const char *bl = baseline_dir("rejudge/bl"), *out = make_dir("rejudge/out");
  write_run("rejudge/x_bench.json", H100, 132, 3000.0, slow, 3, 9);
  write_run("rejudge/slow_again.json", H100, 132, 3000.0, slow, 3, 9);
  write_run("rejudge/fine_again.json", H100, 132, 3000.0, base_set, 3, 9);
  write_run("rejudge/other_gpu.json", H100, 132, 3000.0, slow, 3, 8);
  char run[1200]; /* at() reuses its buffers */
  FORMAT(run, "%s", at("rejudge/x_bench.json"));
  /* Without a re-measure the slower verdict stands, unconfirmed, as before. */
  expect_gate(1, "compare --baselines=%s --min_delta_us=0 %s", bl, run);
  expect_output("REGRESSION elementwise/add/N:1");
  expect_output("slower: +");
  expect_output("  (not re-measured: unconfirmed)");
  expect_gate(1, "compare --baselines=%s --min_delta_us=0 --recheck=%s --out_dir=%s %s", bl,
              at("rejudge/slow_again.json"), out, run);
  expect_output("(confirmed: first +");
  ck_assert(file_has(at("rejudge/out/summary.md"), "## x_bench on NVIDIA H100 80GB HBM3: FAILED"));
  ck_assert(file_has(at("rejudge/out/verdicts.json"), "\"slower\""));
  expect_gate(0, "compare --baselines=%s --min_delta_us=0 --recheck=%s --out_dir=%s %s", bl,
              at("rejudge/fine_again.json"), out, run);
  expect_output("not confirmed: re-measured");
  ck_assert(file_has(at("rejudge/out/summary.md"), "## x_bench on NVIDIA H100 80GB HBM3: passed"));
  ck_assert(!file_has(at("rejudge/out/verdicts.json"), "\"slower\""));
  /* A re-measure of another GPU, a folder without this GPU's baseline, both or neither baseline flag. */
  expect_gate(2, "compare --baselines=%s --min_delta_us=0 --recheck=%s %s", bl, at("rejudge/other_gpu.json"), run);
  expect_output("is not a re-measure of");
  expect_gate(2, "compare --baselines=%s %s", make_dir("rejudge/empty"), run);
  expect_output("nvidia-h100-80gb-hbm3.json: no such file");
  expect_gate(2, "compare --baselines=%s --baseline=%s/nvidia-h100-80gb-hbm3.json %s", bl, bl, run);
  expect_output("--baseline=FILE or --baselines=DIR");
  expect_gate(2, "compare %s", run);
  expect_output("--baseline=FILE or --baselines=DIR");
}
END_TEST

/* pid no longer runs: an orphan adopted here (the test is a subreaper) that died and is
 * reaped now, or a process that is not ours and no longer exists. */
static int gone(pid_t pid) {
  int st;
  pid_t r = waitpid(pid, &st, WNOHANG);
  if (r == pid) return 1;
  if (r == 0) return 0;
  return kill(pid, 0) != 0 && errno == ESRCH;
}

/* Reads the pid a stand-in benchmark wrote to dir/rel, waiting up to a minute for it. */
static pid_t pid_from(const char *rel) {
  for (int i = 0; i < 1200; i++) {
    FILE *f = fopen(at(rel), "r");
    int pid = 0;
    if (f) {
      int ok = fscanf(f, "%d", &pid) == 1;
      fclose(f);
      if (ok && pid > 0) return pid;
    }
    usleep(50000);
  }
  ck_abort_msg("the stand-in benchmark never started");
  return -1;
}

/* The benchmark holds its GPU: when the gate is killed (SIGKILL, SIGTERM, SIGINT) the
 * benchmark must not outlive it. */
START_TEST(benchmark_dies_with_the_gate) {
  ck_assert_int_eq(prctl(PR_SET_CHILD_SUBREAPER, 1), 0); /* orphans come here, to be seen and reaped */
  const char *bl = make_dir("killed/bl");
  char body[2048];
  FORMAT(body, "echo $$ > '%s.tmp'; mv '%s.tmp' '%s'; exec sleep 600\n", at("killed/pid"), at("killed/pid"),
         at("killed/pid"));
  const char *bench = make_bench("killed/fake_bench", body);
  char bench_flag[1100], bl_flag[1100], out_flag[1100];
  FORMAT(bench_flag, "--bench=%s", bench);
  FORMAT(bl_flag, "--baselines=%s", bl);
  FORMAT(out_flag, "--out_dir=%s", make_dir("killed"));
  const int sigs[] = {SIGKILL, SIGTERM, SIGINT};
  for (size_t i = 0; i < 3; i++) {
    unlink(at("killed/pid"));
    int go[2];
    ck_assert_int_eq(pipe(go), 0);
    char *args[] = {"check", bench_flag, bl_flag, out_flag, NULL};
    pid_t g = start_gate(go, args);
    close(go[0]);
    close(go[1]);
    pid_t child = pid_from("killed/pid");
    ck_assert_int_eq(kill(g, sigs[i]), 0);
    int st = exit_status(g);
    ck_assert_msg(st != 0, "the gate exited 0 after signal %d", sigs[i]);
    int k = 0;
    while (!gone(child) && k++ < 1200) usleep(50000); /* up to a minute */
    if (!gone(child)) {
      kill(child, SIGKILL);
      ck_abort_msg("the benchmark (pid %d) outlived the gate killed by signal %d", (int)child, sigs[i]);
    }
  }
}
END_TEST

/* A report that cannot be written (a full disk, here /dev/full) fails the gate check (exit 2,
 * the file and errno named): a pass without its verdicts would be recorded as nothing. */
START_TEST(failed_writes_fail_the_check) {
  const char *bl = baseline_dir("full/bl"), *out = make_dir("full/out");
  write_run("full/run.json", H100, 132, 3000.0, base_set, 3, 11);
  const char *bench = copy_bench("full/fake_bench", at("full/run.json"), at("full/run.json"));
  expect_gate(0, "check --bench=%s --baselines=%s --out_dir=%s", bench, bl, out);
  ck_assert_int_eq(setenv("XML_OUTPUT_FILE", "/dev/full", 1), 0);
  expect_gate(2, "check --bench=%s --baselines=%s --out_dir=%s", bench, bl, out);
  unsetenv("XML_OUTPUT_FILE");
  expect_output("/dev/full");
  expect_output(strerror(ENOSPC));
  /* The stand-in benchmark points a report at /dev/full after the gate removed the old one. */
  const char *reports[] = {"verdicts.json", "summary.md"};
  for (size_t i = 0; i < 2; i++) {
    char body[2048];
    FORMAT(body, "cp '%s' \"$out\"; ln -s /dev/full \"$(dirname \"$out\")/%s\"\n", at("full/run.json"), reports[i]);
    make_bench("full/fake_bench", body);
    expect_gate(2, "check --bench=%s --baselines=%s --out_dir=%s", bench, bl, out);
    expect_output(reports[i]);
    expect_output(strerror(ENOSPC));
    /* Neither is left: a summary.md saying "passed" beside no verdicts would read as the result. */
    ck_assert_msg(access(at("full/out/summary.md"), F_OK) != 0, "summary.md left after a failed write");
    ck_assert_msg(access(at("full/out/verdicts.json"), F_OK) != 0, "verdicts.json left after a failed write");
  }
  /* The candidate baseline, when there is no baseline: a folder stands where it would go. */
  char body[2048];
  FORMAT(body, "cp '%s' \"$out\"; mkdir -p \"$(dirname \"$out\")/nvidia-h100-80gb-hbm3.candidate.json\"\n",
         at("full/run.json"));
  make_bench("full/fake_bench", body);
  expect_gate(2, "check --bench=%s --baselines=%s --out_dir=%s", bench, make_dir("full/empty"), out);
  expect_output("nvidia-h100-80gb-hbm3.candidate.json");
}
END_TEST

/* A report cut short by a full disk (here a file size limit: EFBIG) leaves no part of any report, and the errno
 * named is the write's: each is written to a temporary file and renamed, verdicts.json first. */
START_TEST(a_failed_write_leaves_no_report) {
  const char *bl = baseline_dir("cut/bl"), *cmp = make_dir("cut/compare"), *chk = make_dir("cut/check");
  write_run("cut/run.json", H100, 132, 3000.0, base_set, 3, 11);
  char args[4096], body[1024], cmd[4096];
  FORMAT(args, "compare --baselines=%s --out_dir=%s %s", bl, cmp, at("cut/run.json"));
  int rc = gate_with_file_limit(64, args);
  ck_assert_msg(rc == 2, "gate compare exited %d, expected 2; its output:\n%s", rc, gate_output);
  expect_output("verdicts.json");
  expect_output(strerror(EFBIG));
  FORMAT(cmd, "test -z \"$(ls -A '%s')\"", cmp);
  ck_assert_msg(system(cmd) == 0, "gate compare left files in %s after a failed write", cmp);
  /* gate check: the stand-in benchmark links its run JSON in (a copy would be cut short too). */
  FORMAT(body, "ln -s '%s' \"$out\"\n", at("cut/run.json"));
  const char *bench = make_bench("cut/fake_bench", body);
  FORMAT(args, "check --bench=%s --baselines=%s --out_dir=%s", bench, bl, chk);
  rc = gate_with_file_limit(64, args);
  ck_assert_msg(rc == 2, "gate check exited %d, expected 2; its output:\n%s", rc, gate_output);
  expect_output(strerror(EFBIG));
  FORMAT(cmd, "test \"$(ls -A '%s')\" = fake_bench.json", chk);
  ck_assert_msg(system(cmd) == 0, "gate check left more than its run JSON in %s after a failed write", chk);
}
END_TEST

/* Runs of base_set with a warm-up of `warmup` s (context.timing.min_warmup_time_s), dir/<name>N.json
 * for N in [0, n), seeds from seed. */
static void write_warm_runs(const char *dir, const char *name, unsigned n, unsigned seed, double warmup) {
  write_base_runs(dir, name, n, seed);
  for (unsigned r = 0; r < n; r++) {
    char file[128];
    FORMAT(file, "%s/%s%u.json", dir, name, r);
    set_context(file, "timing", json_pack("{s:f}", "min_warmup_time_s", warmup));
  }
}

/* gate check --warmup=S gives the benchmark --benchmark_min_warmup_time=S, in the first run and the
 * re-measure alike, and without --warmup no such flag; a value that is not seconds from 0 to 60,
 * and the benchmark's own flag after --, are refused before anything runs. A run with another
 * warm-up than the baseline's runs is refused by check and by bless (plain and --add), the
 * baseline untouched. */
START_TEST(warmup_is_given_by_the_gate_and_must_match) {
  const char *cold_bl = baseline_dir("warm/cold_bl"); /* runs without a warm-up (the field absent) */
  const char *warm_bl = make_dir("warm/warm_bl");
  write_warm_runs("warm", "w", 4, 110, 0.2);
  write_warm_runs("warm", "c", 1, 120, 0);
  const char *bench = args_bench("warm/fake_bench", at("warm/w3.json"));
  const char *bad[] = {"-1", "abc", "", "60.5", "inf", "nan", "0.2s"};
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    expect_gate(2, "check --bench=%s --baselines=%s --out_dir=%s --warmup=%s", bench, cold_bl, at("warm"), bad[i]);
    expect_output("--warmup=");
    expect_output("want seconds from 0 to 60");
  }
  expect_gate(2, "check --bench=%s --baselines=%s --out_dir=%s -- --benchmark_min_warmup_time=0.2", bench, cold_bl,
              at("warm"));
  expect_output("--benchmark_min_warmup_time=0.2 after --");
  expect_output("give gate check --warmup=S");
  ck_assert_int_ne(access(at("warm/fake_bench.json.args"), F_OK), 0); /* the benchmark never ran */

  /* A warm run against a baseline of runs without a warm-up: refused, naming the field and the fix. */
  expect_gate(2, "check --bench=%s --baselines=%s --out_dir=%s --warmup=0.2", bench, cold_bl, at("warm"));
  ck_assert(file_has(at("warm/fake_bench.json.args"), "--benchmark_min_warmup_time=0.2"));
  expect_output("field runs[0].warmup_s differs");
  expect_output("0 s of warm-up per benchmark and context in the baseline, 0.2 s in this run");

  /* Runs of one bless share their warm-up; --add of runs with another is refused. */
  expect_gate(2, "bless --baselines=%s %s %s", warm_bl, at("warm/w0.json"), at("warm/c0.json"));
  expect_output("run 2 was measured with 0 s of warm-up per benchmark and context and run 1 with 0.2 s");
  ck_assert_int_ne(access(at("warm/warm_bl/nvidia-h100-80gb-hbm3.json"), F_OK), 0);
  expect_gate(0, "bless --baselines=%s %s %s %s", warm_bl, at("warm/w0.json"), at("warm/w1.json"), at("warm/w2.json"));
  const char *warm_path = at("warm/warm_bl/nvidia-h100-80gb-hbm3.json");
  ck_assert(file_has(warm_path, "\"warmup_s\":0.2"));
  expect_gate(2, "bless --baselines=%s --add %s", warm_bl, at("warm/c0.json"));
  expect_output("warmup_s differs");
  expect_gate(2, "bless --baselines=%s --add %s", cold_bl, at("warm/w3.json"));
  expect_output("warmup_s differs");
  gate_figures f;
  char err[1024];
  ck_assert_msg(load_baseline(warm_path, &f, err, sizeof err) == 0, "%s", err);
  ck_assert_uint_eq(f.nruns, 3);
  free_figures(&f);

  /* The same warm-up on both sides compares; a run that looks slower is re-measured with it too. */
  expect_gate(0, "check --bench=%s --baselines=%s --out_dir=%s --warmup=0.2", bench, warm_bl, at("warm"));
  expect_output("PASS: 3 benchmarks, 3 compared");
  write_run("warm/slow.json", H100, 132, 3000.0, slow, 3, 130);
  set_context("warm/slow.json", "timing", json_pack("{s:f}", "min_warmup_time_s", 0.2));
  const char *slow_bench = args_bench("warm/slow_bench", at("warm/slow.json"));
  expect_gate(1, "check --bench=%s --baselines=%s --out_dir=%s --warmup=0.2 --min_delta_us=0", slow_bench, warm_bl,
              at("warm"));
  expect_output("re-measuring");
  ck_assert(file_has(at("warm/slow_bench.json.args"), "--benchmark_min_warmup_time=0.2"));
  ck_assert(file_has(at("warm/slow_bench.recheck.json.args"), "--benchmark_min_warmup_time=0.2"));

  /* Without --warmup (or with 0) the benchmark gets no warm-up flag, and a run without one compares
   * with the old baselines as before. */
  const char *cold_bench = args_bench("warm/cold_bench", at("warm/c0.json"));
  expect_gate(0, "check --bench=%s --baselines=%s --out_dir=%s", cold_bench, cold_bl, at("warm"));
  ck_assert(!file_has(at("warm/cold_bench.json.args"), "warmup"));
  expect_gate(0, "check --bench=%s --baselines=%s --out_dir=%s --warmup=0", cold_bench, cold_bl, at("warm"));
  ck_assert(!file_has(at("warm/cold_bench.json.args"), "warmup"));
}
END_TEST

/* A warm-up is a family's (kernel_family's perf_args): the runs of a gate round, whose matmul is
 * measured with one and the other families without, bless together (ci/bless.sh soak/round*), plain
 * and with --add (how a runner is brought in); within a family the warm-up must agree (above). */
START_TEST(warmup_is_a_familys) {
  const char *bl = make_dir("wf/bl");
  static const fake_bench matmul[2] = {{"matmul/tiled/M:1", 90000}, {"matmul/tiled/M:2", 120000}};
  char args[4096] = "";
  size_t used = 0;
  write_base_runs("wf", "e", 4, 140); /* elementwise, no warm-up */
  for (unsigned r = 0; r < 4; r++) {
    char name[64];
    FORMAT(name, "wf/m%u.json", r);
    write_run(name, H100, 132, 3000.0, matmul, 2, 150 + r);
    set_context(name, "timing", json_pack("{s:f}", "min_warmup_time_s", 0.1));
  }
  for (unsigned r = 0; r < 3; r++) { /* a round: one run of each family */
    char e[64], m[64];
    FORMAT(e, "wf/e%u.json", r);
    FORMAT(m, "wf/m%u.json", r);
    used += (size_t)snprintf(args + used, sizeof args - used, " %s", at(e));
    used += (size_t)snprintf(args + used, sizeof args - used, " %s", at(m));
    ck_assert_uint_lt(used, sizeof args);
  }
  expect_gate(0, "bless --baselines=%s%s", bl, args);
  expect_gate(0, "bless --baselines=%s --add %s %s", bl, at("wf/e3.json"), at("wf/m3.json")); /* a runner's round */
  gate_figures f;
  char err[1024];
  ck_assert_msg(load_baseline(at("wf/bl/nvidia-h100-80gb-hbm3.json"), &f, err, sizeof err) == 0, "%s", err);
  ck_assert_uint_eq(f.nruns, 8);
  ck_assert_uint_eq(find_bench(&f, matmul[0].name)->nruns, 4);
  ck_assert_uint_eq(find_bench(&f, base_set[0].name)->nruns, 4);
  for (size_t i = 0; i < f.n; i++) /* each family keeps its own */
    for (size_t m = 0; m < f.b[i].nruns; m++)
      ck_assert_double_eq_tol(f.runs[f.b[i].runs[m].run].warmup_s, strncmp(f.b[i].name, "matmul/", 7) ? 0 : 0.1, 1e-12);
  free_figures(&f);
}
END_TEST

int main(int argc, char **argv) {
  if (test_setup(argc, argv)) return 2;
  Suite *s = suite_create("gate_cli_check");
  TCase *tc = tcase_create("cli_check");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, verdicts_name_their_gpu_and_run);
  tcase_add_test(tc, summary_headers_and_legend_are_the_field_table);
  tcase_add_test(tc, a_pipe_in_a_name_keeps_the_summary_table);
  tcase_add_test(tc, a_slower_library_reference_says_what_it_was_read_against);
  tcase_add_test(tc, a_family_not_in_the_baseline_is_said);
  tcase_add_test(tc, compare_of_a_testbed_without_baseline_runs_is_not_judged);
  tcase_add_test(tc, a_family_tolerance_of_no_family_is_warned_of);
  tcase_add_test(tc, stale_outputs_are_never_judged);
  tcase_add_test(tc, compare_rejudges_a_run_with_its_re_measure);
  tcase_add_test(tc, benchmark_dies_with_the_gate);
  tcase_add_test(tc, failed_writes_fail_the_check);
  tcase_add_test(tc, a_failed_write_leaves_no_report);
  tcase_add_test(tc, warmup_is_given_by_the_gate_and_must_match);
  tcase_add_test(tc, warmup_is_a_familys);
  suite_add_tcase(s, tc);
  return run_suite(s);
}
