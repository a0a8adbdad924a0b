/* CPU tests of the gate binary's commands end to end: what a user or CI gets
 * for bad input, concurrent or interrupted runs, and failed writes. Exit codes:
 * 0 pass, 1 confirmed regression (or a failed benchmark), 2 bad input or usage. */
#define _GNU_SOURCE
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "perf/gate/figures.h"
#include "perf/gate/testutil.h"
#include "tests/support/check_run.h"

/* A stand-in benchmark dir/rel that keeps its command line in "$out.args" and writes the prepared
 * run file `run` (the first run and the re-measure alike). */
static const char *args_bench(const char *rel, const char *run) {
  char body[4096];
  FORMAT(body, "echo \"$args\" > \"$out.args\"; cp '%s' \"$out\"\n", run);
  return make_bench(rel, body);
}

/* --help is not an error; --repetitions is a whole number of repetitions. */
START_TEST(help_and_repetitions) {
  expect_gate(0, "--help");
  expect_output("usage:");
  expect_gate(0, "check --help");
  expect_output("gate check");
  make_dir("reps/bl");
  write_run("reps/run.json", H100, 132, 3000.0, base_set, 3, 1);
  const char *bench = args_bench("reps/fake_bench", at("reps/run.json"));
  const char *bad[] = {"0.5", "0", "1001", "2x", "", "-3"};
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    expect_gate(2, "check --bench=%s --baselines=%s --out_dir=%s --repetitions=%s", bench, at("reps/bl"), at("reps"),
                bad[i]);
    expect_output("--repetitions");
    expect_output("from 1 to 1000");
  }
  expect_gate(0, "check --bench=%s --baselines=%s --out_dir=%s --repetitions=1000", bench, at("reps/bl"), at("reps"));
  ck_assert(file_has(at("reps/fake_bench.json.args"), "--benchmark_repetitions=1000"));
}
END_TEST

/* A directory where creating a file fails with an errno other than ENOENT (EACCES as a user,
 * /sys as root); *err is that errno. NULL when there is none here. */
static const char *unwritable_dir(int *err) {
  const char *candidates[] = {make_dir("ro"), "/sys"};
  chmod(candidates[0], 0555);
  for (size_t i = 0; i < 2; i++) {
    char probe[1200];
    FORMAT(probe, "%s/probe.json", candidates[i]);
    int fd = open(probe, O_WRONLY | O_CREAT, 0644);
    if (fd >= 0) {
      close(fd);
      unlink(probe);
      continue;
    }
    *err = errno;
    if (errno != ENOENT) return candidates[i];
  }
  return NULL;
}

/* Missing, unreadable and not-JSON inputs are told apart; a failed write names its real errno. */
START_TEST(missing_unreadable_and_bad_inputs_differ) {
  gate_figures f;
  char err[1024];
  make_dir("inputs");
  expect_error(load_run(at("inputs/nope.json"), &f, err, sizeof err), err, "no such file");
  expect_error(load_baseline(at("inputs/nope.json"), &f, err, sizeof err), err, "no such file");
  expect_error(load_run(at("inputs"), &f, err, sizeof err), err, "a folder, not a file");
  write_text("inputs/bad.json", "{\"context\": ");
  expect_error(load_run(at("inputs/bad.json"), &f, err, sizeof err), err, "not valid JSON");
  if (geteuid() != 0) { /* root reads any file */
    write_run("inputs/secret.json", H100, 132, 3000.0, base_set, 3, 1);
    ck_assert_int_eq(chmod(at("inputs/secret.json"), 0), 0);
    expect_error(load_run(at("inputs/secret.json"), &f, err, sizeof err), err, strerror(EACCES));
  }
  write_run("inputs/run.json", H100, 132, 3000.0, base_set, 3, 1);
  expect_gate(2, "compare --baseline=%s %s", at("inputs/nvidia-h100-80gb-hbm3.json"), at("inputs/run.json"));
  expect_output("inputs/nvidia-h100-80gb-hbm3.json: no such file");
  expect_gate(2, "history --history_dir=%s --verdicts=%s %s", at("inputs/hist"), at("inputs/verdicts.json"),
              at("inputs/run.json"));
  expect_output("inputs/verdicts.json: no such file");

  int want;
  const char *ro = unwritable_dir(&want);
  if (!ro) {
    fprintf(stderr, "note: no unwritable folder here: the errno of a refused bless is not tested\n");
    return;
  }
  write_run("inputs/run2.json", H100, 132, 3000.0, base_set, 3, 2);
  expect_gate(2, "bless --baselines=%s %s %s", ro, at("inputs/run.json"), at("inputs/run2.json"));
  expect_output(strerror(want));
  ck_assert_msg(strstr(gate_output, strerror(ENOENT)) == NULL, "the cleanup's ENOENT was reported:\n%s", gate_output);
}
END_TEST

/* A GPU name without a letter or digit cannot name a baseline or history file (".json"). */
START_TEST(gpu_name_must_name_a_file) {
  gate_figures f, base;
  char err[1024];
  make_dir("noname/bl");
  const char *names[] = {"", "---", " / "};
  for (size_t i = 0; i < 3; i++) {
    write_run("noname/run.json", names[i], 132, 3000.0, base_set, 3, 1);
    expect_error(load_run(at("noname/run.json"), &f, err, sizeof err), err, "field context.gpu.name");
    expect_gate(2, "bless --baselines=%s %s", at("noname/bl"), at("noname/run.json"));
    expect_output("noname/run.json: field context.gpu.name");
    ck_assert_int_ne(access(at("noname/bl/.json"), F_OK), 0);
    write_text("noname/verdicts.json", "{\"metric\": \"time\", \"verdicts\": []}");
    expect_gate(2, "history --history_dir=%s --verdicts=%s %s", at("noname/hist"), at("noname/verdicts.json"),
                at("noname/run.json"));
    expect_output("field context.gpu.name");
    ck_assert_int_ne(access(at("noname/hist/.csv"), F_OK), 0);
  }
  /* A baseline named after an empty slug. */
  make_baseline(&base);
  base.gpu.name[0] = '\0';
  ck_assert_msg(save_baseline(at("noname/bl/.json"), &base, err, sizeof err) == 0, "%s", err);
  expect_error(load_baseline(at("noname/bl/.json"), &f, err, sizeof err), err, "field gpu.name");
  free_figures(&base);
}
END_TEST

/* Figures that are not physical or not finite are refused with the run file, benchmark and
 * field named: jansson cannot write inf or nan, and bless used to drop such a benchmark. */
START_TEST(unphysical_figures_are_refused) {
  make_dir("inf/bl");
  write_run("inf/ok.json", H100, 132, 3000.0, base_set, 3, 1);
  /* All samples of add_float4 are 1e-300 ns: "faster -100 %", "inf GB/s". */
  write_run("inf/tiny.json", H100, 132, 3000.0, base_set, 3, 2);
  json_t *tiny = json_array();
  for (int k = 0; k < 5; k++) json_array_append_new(tiny, json_real(1e-300));
  set_bench("inf/tiny.json", 1, "samples", tiny);
  expect_gate(2, "bless --baselines=%s %s", at("inf/bl"), at("inf/tiny.json"));
  expect_output("inf/tiny.json: field benchmarks[1].samples[0]");
  expect_output("not a physical time");
  ck_assert_int_ne(access(at("inf/bl/nvidia-h100-80gb-hbm3.json"), F_OK), 0);
  /* bytes_per_second x real_time overflows: the bytes moved per call are not finite. */
  write_run("inf/huge.json", H100, 132, 3000.0, base_set, 3, 3);
  set_bench("inf/huge.json", 2, "bytes_per_second", json_real(1e300));
  set_bench("inf/huge.json", 2, "real_time", json_real(1e10));
  expect_gate(2, "bless --baselines=%s %s %s", at("inf/bl"), at("inf/ok.json"), at("inf/huge.json"));
  expect_output("inf/huge.json: benchmarks[2] (elementwise/saxpy/N:1): field bytes_per_second");
  ck_assert_int_ne(access(at("inf/bl/nvidia-h100-80gb-hbm3.json"), F_OK), 0);
  /* compare refuses them too. */
  write_run("inf/ok2.json", H100, 132, 3000.0, base_set, 3, 4);
  expect_gate(0, "bless --baselines=%s %s %s", at("inf/bl"), at("inf/ok.json"), at("inf/ok2.json"));
  expect_output("Blessed 3 benchmarks");
  expect_gate(2, "compare --baseline=%s %s", at("inf/bl/nvidia-h100-80gb-hbm3.json"), at("inf/tiny.json"));
  expect_output("not a physical time");

  /* A baseline is never written without a benchmark it was given. */
  gate_figures base, again;
  char err[1024];
  make_baseline(&base);
  base.b[1].bytes_per_second = INFINITY;
  expect_error(save_baseline(at("inf/nvidia-h100-80gb-hbm3.json"), &base, err, sizeof err), err,
               "elementwise/add_float4/N:1: field bytes_per_second");
  ck_assert_int_ne(access(at("inf/nvidia-h100-80gb-hbm3.json"), F_OK), 0);
  base.b[1].bytes_per_second = 1e12;
  double kept = base.b[2].runs[1].contexts_ns[0];
  base.b[2].runs[1].contexts_ns[0] = NAN;
  expect_error(save_baseline(at("inf/nvidia-h100-80gb-hbm3.json"), &base, err, sizeof err), err,
               "elementwise/saxpy/N:1: field runs[1].contexts_ns");
  base.b[2].runs[1].contexts_ns[0] = kept;
  ck_assert_msg(save_baseline(at("inf/nvidia-h100-80gb-hbm3.json"), &base, err, sizeof err) == 0, "%s", err);
  ck_assert_msg(load_baseline(at("inf/nvidia-h100-80gb-hbm3.json"), &again, err, sizeof err) == 0, "%s", err);
  ck_assert_uint_eq(again.n, 3);
  free_figures(&base);
  free_figures(&again);
  /* A bad figure in a baseline is fixed by re-blessing it, not by re-running the benchmark. */
  const char *edits[][2] = {{"samples_ns", "[0.0]"}, {"median_ns", "-5.0"}};
  make_dir("inf/edit");
  for (size_t i = 0; i < 2; i++) {
    json_error_t jerr;
    json_t *doc = json_load_file(at("inf/nvidia-h100-80gb-hbm3.json"), 0, &jerr);
    ck_assert_ptr_nonnull(doc);
    json_t *m = json_array_get(json_object_get(json_array_get(json_object_get(doc, "benchmarks"), 0), "runs"), 0);
    json_object_set_new(m, edits[i][0], json_loads(edits[i][1], JSON_DECODE_ANY, &jerr));
    ck_assert_int_eq(json_dump_file(doc, at("inf/edit/nvidia-h100-80gb-hbm3.json"), 0), 0);
    json_decref(doc);
    expect_error(load_baseline(at("inf/edit/nvidia-h100-80gb-hbm3.json"), &again, err, sizeof err), err, edits[i][0]);
    ck_assert_msg(strstr(err, "Re-bless it (ci/bless.sh)") && !strstr(err, "Re-run the benchmark"), "%s", err);
  }
}
END_TEST

/* A baseline's noise is the spread between separate runs: one run given twice (the same
 * file, another path to it, or a copy) would count as two and hide that spread. */
START_TEST(one_run_counts_once) {
  make_dir("dup/bl");
  write_run("dup/a.json", H100, 132, 3000.0, base_set, 3, 1);
  write_run("dup/b.json", H100, 132, 3000.0, base_set, 3, 2);
  write_run("dup/c.json", H100, 132, 3000.0, base_set, 3, 3);
  const char *bl = make_dir("dup/bl");
  expect_gate(2, "bless --baselines=%s %s %s %s", bl, at("dup/a.json"), at("dup/a.json"), at("dup/a.json"));
  expect_output("dup/a.json and ");
  expect_output("the same file");
  make_dir("dup/sub");
  expect_gate(2, "bless --baselines=%s %s %s %s", bl, at("dup/a.json"), at("dup/b.json"), at("dup/sub/../a.json"));
  expect_output("the same file");
  char cmd[2048];
  FORMAT(cmd, "cp '%s' '%s'", at("dup/b.json"), at("dup/b_copy.json"));
  ck_assert_int_eq(system(cmd), 0);
  expect_gate(2, "bless --baselines=%s %s %s %s", bl, at("dup/a.json"), at("dup/b.json"), at("dup/b_copy.json"));
  expect_output("dup/b.json and ");
  expect_output("dup/b_copy.json are the same run");
  ck_assert_int_ne(access(at("dup/bl/nvidia-h100-80gb-hbm3.json"), F_OK), 0);
  /* A run dated in the future (a runner's wrong clock) would order the history wrongly (#56 W08). */
  write_run("dup/future.json", H100, 132, 3000.0, base_set, 3, 4);
  set_context("dup/future.json", "date", json_string("2099-01-01T00:00:00+00:00"));
  expect_gate(2, "bless --baselines=%s %s %s %s", bl, at("dup/a.json"), at("dup/b.json"), at("dup/future.json"));
  expect_output("dup/future.json: field context.date: 2099-01-01T00:00:00+00:00 lies in the future");
  ck_assert_int_ne(access(at("dup/bl/nvidia-h100-80gb-hbm3.json"), F_OK), 0);
  expect_gate(0, "bless --baselines=%s %s %s %s", bl, at("dup/a.json"), at("dup/b.json"), at("dup/c.json"));
  expect_output("Blessed 3 benchmarks from 3 run(s)");
}
END_TEST

/* n runs of base_set on H100s, dir/<name>0.json ... (seeds seed, seed + 1, ...: one GPU each). */
static void write_base_runs(const char *dir, const char *name, unsigned n, unsigned seed) {
  for (unsigned r = 0; r < n; r++) {
    char file[128];
    FORMAT(file, "%s/%s%u.json", dir, name, r);
    write_run(file, H100, 132, 3000.0, base_set, 3, seed + r);
  }
}

/* Counts the lines of path that start with prefix, and (in *all) all its lines. */
static size_t lines_starting(const char *path, const char *prefix, size_t *all) {
  FILE *f = fopen(path, "r");
  ck_assert_msg(f != NULL, "cannot open %s", path);
  char line[65536];
  size_t n = 0;
  *all = 0;
  while (fgets(line, sizeof line, f)) {
    ck_assert_msg(strchr(line, '\n') != NULL, "%s: a line longer than %zu characters", path, sizeof line);
    ++*all;
    n += strncmp(line, prefix, strlen(prefix)) == 0;
  }
  fclose(f);
  return n;
}

/* A baseline is written one line per run and one per measure of a benchmark (a bless's diff shows
 * which runs came and went, at half the size of one value per line), and reads back as written. */
START_TEST(baseline_has_a_line_per_run_and_per_measure) {
  const char *bl = make_dir("lines/bl");
  write_base_runs("lines", "run", 4, 90);
  expect_gate(0, "bless --baselines=%s %s %s %s", bl, at("lines/run0.json"), at("lines/run1.json"),
              at("lines/run2.json"));
  const char *path = at("lines/bl/nvidia-h100-80gb-hbm3.json");
  size_t all;
  ck_assert_uint_eq(lines_starting(path, "  {\"date\":", &all), 3);
  ck_assert_uint_eq(lines_starting(path, "  {\"name\":", &all), 3);
  ck_assert_uint_eq(lines_starting(path, "   {\"run\":", &all), 9);
  /* {, schema_version, gpu, "runs":[, 3 runs, ], "benchmarks":[, 3 x (name, 3 measures, ]}), ], } */
  ck_assert_uint_eq(all, 26);
  json_error_t jerr;
  json_t *doc = json_load_file(path, 0, &jerr);
  ck_assert_msg(doc != NULL, "%s: %s", path, jerr.text);
  ck_assert_uint_eq(json_array_size(json_object_get(doc, "runs")), 3);
  json_decref(doc);
  expect_gate(0, "bless --baselines=%s --add %s", bl, at("lines/run3.json"));
  ck_assert_uint_eq(lines_starting(path, "  {\"date\":", &all), 4);
  ck_assert_uint_eq(lines_starting(path, "   {\"run\":", &all), 12);
  gate_figures f;
  char err[1024];
  ck_assert_msg(load_baseline(path, &f, err, sizeof err) == 0, "%s", err);
  ck_assert_uint_eq(f.nruns, 4);
  ck_assert_uint_eq(find_bench(&f, base_set[2].name)->nruns, 4);
  free_figures(&f);
}
END_TEST

/* bless --add brings a runner into the baseline: its runs join the old runs of their families
 * (a plain bless replaces them), a run already there or one made another way is refused, and
 * a benchmark only the new runs have comes with those alone. */
START_TEST(bless_add_joins_the_old_runs) {
  const char *bl = make_dir("add/bl");
  const fake_bench more[4] = {base_set[0], base_set[1], base_set[2], {"elementwise/add_v2/N:1", 900}};
  for (unsigned r = 0; r < 5; r++) {
    char name[64];
    FORMAT(name, "add/run%u.json", r);
    int with_v2 = r == 2 || r == 3;
    write_run(name, H100, 132, 3000.0, with_v2 ? more : base_set, with_v2 ? 4 : 3, 70 + r);
  }
  /* The temporary file of a bless that was killed (kill -9) is removed by the next bless. */
  write_text("add/bl/nvidia-h100-80gb-hbm3.json.tmp.4242", "{\"schema_version\": ");
  expect_gate(0, "bless --baselines=%s %s %s", bl, at("add/run0.json"), at("add/run1.json"));
  expect_output("nvidia-h100-80gb-hbm3.json.tmp.4242, left by a bless that was stopped");
  ck_assert_int_ne(access(at("add/bl/nvidia-h100-80gb-hbm3.json.tmp.4242"), F_OK), 0);
  expect_gate(0, "bless --baselines=%s --add %s %s", bl, at("add/run2.json"), at("add/run3.json"));
  expect_output("their runs join the old ones");
  gate_figures f;
  char err[1024];
  ck_assert_msg(load_baseline(at("add/bl/nvidia-h100-80gb-hbm3.json"), &f, err, sizeof err) == 0, "%s", err);
  ck_assert_uint_eq(f.nruns, 4);
  ck_assert_uint_eq(find_bench(&f, "elementwise/add/N:1")->nruns, 4);
  ck_assert_uint_eq(find_bench(&f, "elementwise/add_v2/N:1")->nruns, 2);
  free_figures(&f);
  /* A run already there, and a run with another L2 flush: refused, the baseline untouched. */
  expect_gate(2, "bless --baselines=%s --add %s", bl, at("add/run2.json"));
  expect_output("is in the baseline already");
  set_context("add/run4.json", "l2_flush_method", json_string("read")); /* the others: write */
  expect_gate(2, "bless --baselines=%s --add %s", bl, at("add/run4.json"));
  expect_output("l2_flush differs");
  ck_assert_msg(load_baseline(at("add/bl/nvidia-h100-80gb-hbm3.json"), &f, err, sizeof err) == 0, "%s", err);
  ck_assert_uint_eq(f.nruns, 4);
  free_figures(&f);
  /* Without --add the runs given replace their families. */
  expect_gate(0, "bless --baselines=%s %s %s", bl, at("add/run2.json"), at("add/run3.json"));
  ck_assert_msg(load_baseline(at("add/bl/nvidia-h100-80gb-hbm3.json"), &f, err, sizeof err) == 0, "%s", err);
  ck_assert_uint_eq(find_bench(&f, "elementwise/add/N:1")->nruns, 2);
  free_figures(&f);
}
END_TEST

/* bless --add refuses a run that its own gate judges slower than the baseline (blessed in, its
 * slowdown would become the baseline's noise and widen every GPU's threshold), naming the
 * benchmark and --accept-slower, and leaves the baseline as it was; --accept-slower blesses it in
 * with a warning. A bless whose benchmarks all come from one GPU says so. */
START_TEST(bless_add_refuses_a_slower_run) {
  const char *bl = make_dir("slow/bl");
  static const fake_bench big[3] = {
      {"elementwise/add/N:1", 100e3}, {"elementwise/add_float4/N:1", 200e3}, {"elementwise/saxpy/N:1", 300e3}};
  for (unsigned r = 0; r < 3; r++) {
    char name[64];
    FORMAT(name, "slow/base%u.json", r);
    write_run(name, H100, 132, 3000.0, big, 3, 86 + r);
  }
  expect_gate(0, "bless --baselines=%s %s %s %s", bl, at("slow/base0.json"), at("slow/base1.json"),
              at("slow/base2.json"));
  fake_bench slow[3];
  memcpy(slow, big, sizeof slow);
  slow[1].median_ns *= 1.10;
  write_run("slow/run.json", H100, 132, 3000.0, slow, 3, 90);
  expect_gate(1, "compare --baselines=%s %s", bl, at("slow/run.json")); /* its gate: slower */
  expect_output("REGRESSION elementwise/add_float4/N:1: slower");
  char path[1200], cmd[2600];
  FORMAT(path, "%s/nvidia-h100-80gb-hbm3.json", bl);
  FORMAT(cmd, "cp '%s' '%s.before'", path, path);
  ck_assert_int_eq(system(cmd), 0);
  expect_gate(2, "bless --baselines=%s --add %s", bl, at("slow/run.json"));
  expect_output("elementwise/add_float4/N:1: slower by +10");
  expect_output("--accept-slower");
  FORMAT(cmd, "cmp -s '%s' '%s.before'", path, path);
  ck_assert_msg(system(cmd) == 0, "a refused bless changed the baseline");
  /* A run as fast as the baseline joins; one slower joins with --accept-slower, saying so. */
  write_run("slow/same.json", H100, 132, 3000.0, big, 3, 91);
  expect_gate(0, "bless --baselines=%s --add %s", bl, at("slow/same.json"));
  expect_gate(0, "bless --baselines=%s --add --accept-slower %s", bl, at("slow/run.json"));
  expect_output("blessed in though slower (--accept-slower)");
  expect_output("elementwise/add_float4/N:1");
  gate_figures f;
  char err[1024];
  ck_assert_msg(load_baseline(path, &f, err, sizeof err) == 0, "%s", err);
  ck_assert_uint_eq(f.nruns, 5);
  free_figures(&f);
  ck_assert_ptr_null(strstr(gate_output, "from one GPU only"));
  /* Three runs of one GPU: the summary warns. */
  const char *one = make_dir("slow/one");
  for (unsigned r = 0; r < 3; r++) {
    char name[64];
    FORMAT(name, "slow/one%u.json", r);
    write_run(name, H100, 132, 3000.0, base_set, 3, 92 + r);
    set_gpu_uuid(name, "GPU-only-one");
  }
  expect_gate(0, "bless --baselines=%s %s %s %s", one, at("slow/one0.json"), at("slow/one1.json"),
              at("slow/one2.json"));
  expect_output("comes from one GPU only");
  expect_output("elementwise/add/N:1: 3 run(s), all on GPU-only-one");
}
END_TEST

/* bless --only re-blesses the benchmarks it names (a variant changed on purpose): their runs are
 * replaced by the runs given, every other benchmark of the family keeps its own; a run with no
 * benchmark it names is left out, said; a pattern that matches nothing in any run given, or is not a
 * regular expression, is refused and the baseline untouched. */
START_TEST(bless_only_replaces_the_benchmarks_it_names) {
  const char *bl = make_dir("only/bl");
  fake_bench faster[3] = {base_set[0], base_set[1], base_set[2]};
  faster[1].median_ns *= 0.8;
  for (unsigned r = 0; r < 4; r++) {
    char name[64];
    FORMAT(name, "only/run%u.json", r);
    write_run(name, H100, 132, r < 2 ? 3000.0 : 3010.0, r < 2 ? base_set : faster, 3, 90 + r);
  }
  expect_gate(0, "bless --baselines=%s %s %s", bl, at("only/run0.json"), at("only/run1.json"));
  char pattern[300];
  FORMAT(pattern, "^%s$", base_set[1].name);
  expect_gate(0, "bless --baselines=%s --only='%s' %s %s", bl, pattern, at("only/run2.json"), at("only/run3.json"));
  expect_output("they replace the benchmarks they measured");
  expect_output("Kept from the old baseline: 2 benchmarks not matching --only");
  gate_figures f;
  char err[1024];
  ck_assert_msg(load_baseline(at("only/bl/nvidia-h100-80gb-hbm3.json"), &f, err, sizeof err) == 0, "%s", err);
  ck_assert_uint_eq(f.n, 3);
  ck_assert_uint_eq(f.nruns, 4);
  for (int i = 0; i < 3; i++) {
    const gate_bench *b = find_bench(&f, base_set[i].name);
    ck_assert_uint_eq(b->nruns, 2);
    for (size_t r = 0; r < b->nruns; r++) {
      double copy = f.runs[b->runs[r].run].copy_bytes_per_second; /* tells the new runs from the old */
      ck_assert_msg(fabs(copy - (i == 1 ? 3010e9 : 3000e9)) < 1e6, "%s: a run of %.0f GB/s", b->name, copy / 1e9);
    }
  }
  ck_assert_double_lt(find_bench(&f, base_set[1].name)->runs[0].median_ns, 0.9 * base_set[1].median_ns);
  free_figures(&f);
  expect_gate(2, "bless --baselines=%s --only=^nothing/ %s %s", bl, at("only/run2.json"), at("only/run3.json"));
  expect_output("matches no benchmark of the runs given");
  /* A run with nothing to re-bless (another family's, as ci/bless.sh gives them all) is left out, said. */
  const fake_bench other[] = {{"reduce/v7/N:1", 500}};
  write_run("only/other.json", H100, 132, 3000.0, other, 1, 99);
  expect_gate(0, "bless --baselines=%s --only='%s' %s %s %s", bl, pattern, at("only/run2.json"), at("only/other.json"),
              at("only/run3.json"));
  expect_output("Left out: ");
  expect_output("only/other.json (no benchmark matches --only=");
  expect_gate(2, "bless --baselines=%s --only='(' %s %s", bl, at("only/run2.json"), at("only/run3.json"));
  expect_output("not a POSIX extended regular expression");
  ck_assert_msg(load_baseline(at("only/bl/nvidia-h100-80gb-hbm3.json"), &f, err, sizeof err) == 0, "%s", err);
  ck_assert_uint_eq(f.nruns, 4);
  ck_assert_ptr_null(find_bench(&f, "reduce/v7/N:1"));
  free_figures(&f);
}
END_TEST

/* bless --add completes a run re-blessed in part: its benchmarks left out by --only join that run's
 * entry (one run, not two); a benchmark of it the baseline holds already is refused, named. */
START_TEST(bless_add_completes_a_run_blessed_in_part) {
  const char *bl = make_dir("part/bl");
  write_base_runs("part", "run", 2, 110);
  char one[300], others[600];
  FORMAT(one, "^%s$", base_set[1].name);
  FORMAT(others, "^(%s|%s)$", base_set[0].name, base_set[2].name);
  expect_gate(0, "bless --baselines=%s --only='%s' %s %s", bl, one, at("part/run0.json"), at("part/run1.json"));
  expect_gate(0, "bless --baselines=%s --add --only='%s' %s %s", bl, others, at("part/run0.json"),
              at("part/run1.json"));
  gate_figures f;
  char err[1024];
  ck_assert_msg(load_baseline(at("part/bl/nvidia-h100-80gb-hbm3.json"), &f, err, sizeof err) == 0, "%s", err);
  ck_assert_uint_eq(f.nruns, 2);
  for (int i = 0; i < 3; i++) {
    const gate_bench *b = find_bench(&f, base_set[i].name);
    ck_assert_uint_eq(b->nruns, 2);
    ck_assert_uint_ne(b->runs[0].run, b->runs[1].run);
  }
  free_figures(&f);
  /* Every benchmark of run0 is in now: adding it again counts it twice. */
  expect_gate(2, "bless --baselines=%s --add %s", bl, at("part/run0.json"));
  expect_output("is in the baseline already (runs[0]) with ");
  ck_assert_msg(load_baseline(at("part/bl/nvidia-h100-80gb-hbm3.json"), &f, err, sizeof err) == 0, "%s", err);
  ck_assert_uint_eq(f.nruns, 2);
  ck_assert_uint_eq(find_bench(&f, base_set[0].name)->nruns, 2);
  free_figures(&f);
}
END_TEST

/* A run of base_set measured as gate check measures: the first benchmark short (16 contexts), the
 * other two long, in `long_contexts` contexts (0: the first context alone, one median). */
static void write_long_contexts_run(const char *name, int long_contexts, unsigned seed) {
  write_run(name, H100, 132, 3000.0, base_set, 3, seed);
  double medians[16];
  for (int k = 0; k < 16; k++) medians[k] = 1000 * (1 + 0.002 * ((k * 5 + (int)seed) % 7 - 3));
  set_contexts(name, 0, medians, 16);
  for (size_t i = 1; i < 3 && long_contexts > 0; i++) {
    for (int k = 0; k < long_contexts; k++)
      medians[k] = base_set[i].median_ns * (1 + 0.001 * ((k + (int)seed) % 3 - 1));
    set_contexts(name, i, medians, (size_t)long_contexts);
  }
  set_context(name, "timing",
              json_pack("{s:i, s:f, s:i}", "contexts", 16, "contexts_below_s", 50e-6, "long_contexts", long_contexts));
}

/* --long_contexts: runs that measure the long benchmarks in 4 contexts compare with a baseline of
 * one-context runs (the same figure, measured more steadily), never the other way round; bless
 * --add of such runs leaves out the old one-context measures of the benchmarks they measured, and
 * a baseline is never made of runs measured both ways at once. */
START_TEST(long_benchmarks_in_more_contexts) {
  const char *bl = make_dir("long/bl");
  char old[3][1024], fresh[2][1024], name[64];
  for (unsigned r = 0; r < 3; r++) {
    FORMAT(name, "long/old%u.json", r);
    write_long_contexts_run(name, 0, 80 + r);
    FORMAT(old[r], "%s", at(name));
  }
  for (unsigned r = 0; r < 2; r++) {
    FORMAT(name, "long/new%u.json", r);
    write_long_contexts_run(name, 4, 90 + r);
    FORMAT(fresh[r], "%s", at(name));
  }
  expect_gate(2, "bless --baselines=%s %s %s", bl, old[0], fresh[0]);
  expect_output("measured long benchmarks in 4 contexts and run 1 in 0 (--long_contexts)");
  expect_gate(0, "bless --baselines=%s %s %s %s", bl, old[0], old[1], old[2]);
  expect_gate(0, "compare --baselines=%s %s", bl, fresh[0]);
  expect_gate(0, "bless --baselines=%s --add %s %s", bl, fresh[0], fresh[1]);
  expect_output("Left out of the old baseline: 6 measure(s) of long benchmarks");
  gate_figures f;
  char err[1024];
  ck_assert_msg(load_baseline(at("long/bl/nvidia-h100-80gb-hbm3.json"), &f, err, sizeof err) == 0, "%s", err);
  ck_assert_uint_eq(f.nruns, 5);
  ck_assert_uint_eq(find_bench(&f, "elementwise/add/N:1")->nruns, 5); /* short: the old runs stay */
  const gate_bench *longer = find_bench(&f, "elementwise/add_float4/N:1");
  ck_assert_uint_eq(longer->nruns, 2);
  for (size_t r = 0; r < longer->nruns; r++) ck_assert_uint_eq(longer->runs[r].ncontexts, 4);
  ck_assert_uint_eq(find_bench(&f, "elementwise/saxpy/N:1")->nruns, 2);
  free_figures(&f);
  /* A run that measured the long ones in the first context alone is refused by that baseline. */
  FORMAT(name, "long/old%u.json", 3u);
  write_long_contexts_run(name, 0, 83);
  expect_gate(2, "compare --baselines=%s %s", bl, at(name));
  expect_output("long_contexts differs");
  expect_output("--long_contexts=4");
}
END_TEST

/* Starts `gate ARGS...` once go[1] is closed (so that both of a pair start together), output discarded. */
static pid_t start_gate(const int go[2], char *const *args) {
  pid_t pid = fork();
  ck_assert_int_ge(pid, 0);
  if (pid == 0) {
    char c;
    close(go[1]);
    while (read(go[0], &c, 1) > 0) {
    }
    int null = open("/dev/null", O_WRONLY);
    dup2(null, 1);
    dup2(null, 2);
    char *argv[16] = {(char *)gate_bin};
    for (int i = 0; args[i] && i < 14; i++) argv[i + 1] = args[i];
    execv(gate_bin, argv);
    _exit(127);
  }
  return pid;
}

static int exit_status(pid_t pid) {
  int st;
  ck_assert_int_eq(waitpid(pid, &st, 0), pid);
  return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* Two blesses of different families into one baseline at once: both families end up in it
 * (each bless reads, merges and replaces the file under an exclusive lock). */
START_TEST(concurrent_blesses_keep_both_families) {
  static const fake_bench rd[] = {{"reduce/v7/N:1", 500}, {"reduce/cub/N:1", 510}};
  static const fake_bench mm[] = {{"matmul/tiled/N:1", 9000}};
  char ew_runs[3][1024], rd_runs[3][1024];
  for (int r = 0; r < 3; r++) {
    char name[64];
    FORMAT(name, "race/ew%d.json", r);
    make_dir("race");
    write_run(name, H100, 132, 3000.0, base_set, 3, 100 + r);
    FORMAT(ew_runs[r], "%s", at(name));
    FORMAT(name, "race/rd%d.json", r);
    write_run(name, H100, 132, 3000.0, rd, 2, 200 + r);
    FORMAT(rd_runs[r], "%s", at(name));
  }
  write_run("race/mm.json", H100, 132, 3000.0, mm, 1, 300);
  write_run("race/mm2.json", H100, 132, 3000.0, mm, 1, 301);
  for (int pair = 0; pair < 12; pair++) {
    char sub[64], flag[1100];
    FORMAT(sub, "race/bl%d", pair);
    FORMAT(flag, "--baselines=%s", make_dir(sub));
    if (pair % 2) /* half of them into a baseline that holds a third family already */
      expect_gate(0, "bless %s %s %s", flag, at("race/mm.json"), at("race/mm2.json"));
    int go[2];
    ck_assert_int_eq(pipe(go), 0);
    char *a[] = {"bless", flag, ew_runs[0], ew_runs[1], ew_runs[2], NULL};
    char *b[] = {"bless", flag, rd_runs[0], rd_runs[1], rd_runs[2], NULL};
    pid_t pa = start_gate(go, a), pb = start_gate(go, b);
    close(go[0]);
    close(go[1]);
    ck_assert_int_eq(exit_status(pa), 0);
    ck_assert_int_eq(exit_status(pb), 0);
    gate_figures base;
    char err[1024], path[1200];
    FORMAT(path, "%s/nvidia-h100-80gb-hbm3.json", flag + strlen("--baselines="));
    ck_assert_msg(load_baseline(path, &base, err, sizeof err) == 0, "%s", err);
    ck_assert_msg(find_bench(&base, "elementwise/add/N:1") && find_bench(&base, "reduce/cub/N:1"),
                  "pair %d: a family was lost: %zu benchmarks", pair, base.n);
    ck_assert_msg(pair % 2 == 0 || find_bench(&base, "matmul/tiled/N:1"), "pair %d: matmul was lost", pair);
    free_figures(&base);
  }
}
END_TEST

/* A stand-in benchmark binary dir/rel that writes the prepared run file `run`, or `recheck`
 * when the gate re-measures (BENCH_ARGS: $again). */
static const char *copy_bench(const char *rel, const char *run, const char *recheck) {
  char body[4096];
  FORMAT(body, "if [ -n \"$again\" ]; then cp '%s' \"$out\"; else cp '%s' \"$out\"; fi\n", recheck, run);
  return make_bench(rel, body);
}

/* A baseline of base_set in dir/rel/nvidia-h100-80gb-hbm3.json; returns dir/rel. */
static const char *baseline_dir(const char *rel) {
  const char *bl = make_dir(rel);
  gate_figures base;
  char err[1024], path[1200];
  make_baseline(&base);
  FORMAT(path, "%s/nvidia-h100-80gb-hbm3.json", bl);
  ck_assert_msg(save_baseline(path, &base, err, sizeof err) == 0, "%s", err);
  free_figures(&base);
  return bl;
}

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

/* Re-blessing a family from one testbed's runs replaces its runs of that testbed only: the other testbeds keep
 * theirs, and still judge their hosts (#56 W03: they were dropped, and a +50 % run there passed as "new"). */
START_TEST(rebless_keeps_other_testbeds_runs) {
  const char *bl = make_dir("rb/bl");
  char files[9][64], args[2048] = "";
  for (unsigned k = 0; k < 9; k++) {
    FORMAT(files[k], "rb/r%u.json", k);
    write_run(files[k], H100, 132, 3000.0, base_set, 3, 30 + k);
    set_context(files[k], "testbed", json_string(k < 3 || k >= 6 ? "tb one" : "tb two"));
    if (k < 6) {
      size_t used = strlen(args);
      snprintf(args + used, sizeof args - used, " %s", at(files[k]));
    }
  }
  expect_gate(0, "bless --baselines=%s%s", bl, args);
  expect_gate(0, "bless --baselines=%s %s %s %s", bl, at(files[6]), at(files[7]), at(files[8])); /* tb one anew */
  expect_gate(0, "testbeds %s/nvidia-h100-80gb-hbm3.json", bl);
  expect_output("3\t3\ttb one");
  expect_output("3\t3\ttb two");
  const fake_bench slow[] = {
      {"elementwise/add/N:1", 1000 * 1.5}, {"elementwise/add_float4/N:1", 2000}, {"elementwise/saxpy/N:1", 3000}};
  write_run("rb/slow.json", H100, 132, 3000.0, slow, 3, 50);
  set_context("rb/slow.json", "testbed", json_string("tb two"));
  expect_gate(1, "compare --min_delta_us=0.01 --baseline=%s/nvidia-h100-80gb-hbm3.json %s", bl, at("rb/slow.json"));
  expect_output("elementwise/add/N:1");
}
END_TEST

/* A baseline kept as a folder of a file per family (baseline_store.h; #56 scale): migrate --per_family writes it
 * and removes the file; check and compare read the run's family alone and judge as against the file; bless --add
 * rewrites its families' files and no other; testbeds and a bless into it read it whole. */
START_TEST(a_baseline_in_a_file_per_family) {
  const fake_bench two[] = {
      {"copy/copy_float4/N:1", 1500}, {"elementwise/add/N:1", 1000}, {"elementwise/add_float4/N:1", 2000}};
  const fake_bench slow[] = {
      {"copy/copy_float4/N:1", 1500}, {"elementwise/add/N:1", 1500}, {"elementwise/add_float4/N:1", 2000}};
  const char *bl = make_dir("pf/bl");
  char args[2048] = "", name[64];
  for (unsigned k = 0; k < 3; k++) {
    FORMAT(name, "pf/r%u.json", k);
    write_run(name, H100, 132, 3000.0, two, 3, 60 + k);
    size_t used = strlen(args);
    snprintf(args + used, sizeof args - used, " %s", at(name));
  }
  expect_gate(0, "bless --baselines=%s%s", bl, args);
  write_run("pf/slow.json", H100, 132, 3000.0, slow, 3, 70);
  expect_gate(1, "compare --min_delta_us=0.01 --baselines=%s %s", bl, at("pf/slow.json"));
  char file[1200], folder[1200], copy_json[1400], ew_json[1400];
  FORMAT(file, "%s/nvidia-h100-80gb-hbm3.json", bl);
  FORMAT(folder, "%s/nvidia-h100-80gb-hbm3", bl);
  FORMAT(copy_json, "%s/copy.json", folder);
  FORMAT(ew_json, "%s/elementwise.json", folder);
  expect_gate(0, "migrate --per_family %s", file);
  expect_output("a file per family");
  ck_assert_int_ne(access(file, F_OK), 0);
  ck_assert_int_eq(access(copy_json, F_OK), 0);
  ck_assert_int_eq(access(ew_json, F_OK), 0);
  ck_assert(!file_has(copy_json, "elementwise/"));
  expect_gate(1, "compare --min_delta_us=0.01 --baselines=%s %s", bl, at("pf/slow.json"));
  expect_output("elementwise/add/N:1");
  expect_gate(0, "testbeds %s", folder);
  expect_output("3\t3\t(none)");
  /* bless --add of an elementwise run: the copy family's file is left as it was. */
  char before[1400];
  FORMAT(before, "cp '%s' '%s.before'", copy_json, copy_json);
  ck_assert_int_eq(system(before), 0);
  const fake_bench ew[] = {{"elementwise/add/N:1", 1000}, {"elementwise/add_float4/N:1", 2000}};
  write_run("pf/ew.json", H100, 132, 3000.0, ew, 2, 71);
  expect_gate(0, "bless --baselines=%s --add %s", bl, at("pf/ew.json"));
  FORMAT(before, "cmp -s '%s' '%s.before'", copy_json, copy_json);
  ck_assert_msg(system(before) == 0, "the copy family's file was rewritten");
  ck_assert(file_has(ew_json, "2026-11-22T00:01:11+00:00")); /* the new run (seed 71) */
  ck_assert_int_ne(access(file, F_OK), 0);
  /* A family's file with another family's benchmark is refused, naming both. */
  FORMAT(before, "cp '%s' '%s/dot.json'", copy_json, folder);
  ck_assert_int_eq(system(before), 0);
  expect_gate(2, "testbeds %s", folder);
  expect_output("benchmark copy/copy_float4/N:1 is of family copy, not dot");
}
END_TEST

/* A baseline or a history CSV that is a symbolic link is written through it: the link stays a link and the file it
 * points to gets the runs and the rows (#56 D08: the link was replaced by a file, its target never written). */
START_TEST(links_are_written_through) {
  const char *store = baseline_dir("lnk/store"); /* store/nvidia-h100-80gb-hbm3.json, the file linked to */
  const char *bl = make_dir("lnk/bl"), *hist = make_dir("lnk/hist");
  char target[1200], link[1200], csv[1200], csv_link[1200];
  FORMAT(target, "%s/nvidia-h100-80gb-hbm3.json", store);
  FORMAT(link, "%s/nvidia-h100-80gb-hbm3.json", bl);
  FORMAT(csv, "%s/h100.csv", store);
  FORMAT(csv_link, "%s/nvidia-h100-80gb-hbm3.csv", hist);
  write_text("lnk/store/h100.csv", "");
  ck_assert_int_eq(symlink(target, link), 0);
  ck_assert_int_eq(symlink(csv, csv_link), 0);
  write_run("lnk/run.json", H100, 132, 3000.0, base_set, 3, 7);
  expect_gate(0, "bless --baselines=%s --add %s", bl, at("lnk/run.json"));
  struct stat st;
  ck_assert_int_eq(lstat(link, &st), 0);
  ck_assert_msg(S_ISLNK(st.st_mode), "the baseline's link was replaced by a file");
  ck_assert(file_has(target, "2026-11-22T00:00:07+00:00")); /* the new run is in the file linked to */
  const char *bench = copy_bench("lnk/fake_bench", at("lnk/run.json"), at("lnk/run.json"));
  expect_gate(0, "check --bench=%s --baselines=%s --out_dir=%s", bench, store, at("lnk"));
  expect_gate(0, "history --history_dir=%s --verdicts=%s %s", hist, at("lnk/verdicts.json"), at("lnk/run.json"));
  ck_assert_int_eq(lstat(csv_link, &st), 0);
  ck_assert_msg(S_ISLNK(st.st_mode), "the history's link was replaced by a file");
  ck_assert(file_has(csv, "elementwise/add/N:1"));
  /* A link to nothing: said, nothing written. */
  ck_assert_int_eq(remove(csv), 0);
  expect_gate(2, "history --history_dir=%s --verdicts=%s %s", hist, at("lnk/verdicts.json"), at("lnk/run.json"));
  expect_output("a symbolic link to a file that cannot be reached");
}
END_TEST

/* gate history takes the verdicts of its own run only: another run's verdicts would be
 * written as this run's, and an old verdicts file does not say whose it is. */
START_TEST(history_takes_its_own_runs_verdicts) {
  const char *bl = baseline_dir("own/bl");
  write_run("own/run.json", H100, 132, 3000.0, base_set, 3, 5);
  const char *bench = copy_bench("own/fake_bench", at("own/run.json"), at("own/run.json"));
  expect_gate(0, "check --bench=%s --baselines=%s --out_dir=%s", bench, bl, at("own"));
  const char *hist = make_dir("own/hist");
  expect_gate(0, "history --history_dir=%s --verdicts=%s %s", hist, at("own/verdicts.json"), at("own/run.json"));
  /* The same run again (a re-run job): refused, nothing appended (#56 D16). */
  expect_gate(2, "history --history_dir=%s --verdicts=%s %s", hist, at("own/verdicts.json"), at("own/run.json"));
  expect_output("already holds this run's rows");
  /* Another run: another date, host or GPU. */
  write_run("own/later.json", H100, 132, 3000.0, base_set, 3, 6);
  expect_gate(2, "history --history_dir=%s --verdicts=%s %s", hist, at("own/verdicts.json"), at("own/later.json"));
  expect_output("own/verdicts.json");
  expect_output("own/later.json");
  expect_output("run.date");
  write_run("own/elsewhere.json", H100, 132, 3000.0, base_set, 3, 5);
  set_context("own/elsewhere.json", "host_name", json_string("gpu-host-2"));
  expect_gate(2, "history --history_dir=%s --verdicts=%s %s", hist, at("own/verdicts.json"), at("own/elsewhere.json"));
  expect_output("run.host");
  write_run("own/h200.json", "NVIDIA H200", 132, 3000.0, base_set, 3, 5);
  expect_gate(2, "history --history_dir=%s --verdicts=%s %s", hist, at("own/verdicts.json"), at("own/h200.json"));
  expect_output("gpu.name");
  /* A verdicts file from before gpu and run were written. */
  write_text("own/old_verdicts.json",
             "{\"metric\": \"time\", \"verdicts\": [{\"name\": \"elementwise/add/N:1\", "
             "\"verdict\": \"same\"}]}");
  expect_gate(2, "history --history_dir=%s --verdicts=%s %s", hist, at("own/old_verdicts.json"), at("own/run.json"));
  expect_output("own/old_verdicts.json: field gpu.name");
  expect_output("re-run gate check");
  /* Nothing was appended by the refused ones: a header and three rows. */
  char cmd[1200];
  FORMAT(cmd, "test $(wc -l < '%s/nvidia-h100-80gb-hbm3.csv') -eq 4", hist);
  ck_assert_int_eq(system(cmd), 0);
}
END_TEST

/* dir/rel_out: verdicts of the run file dir/rel_run as gate check writes them, every
 * benchmark judged `verdict`. */
static void verdicts_for(const char *rel_run, const char *rel_out, const char *verdict) {
  json_error_t jerr;
  json_t *run = json_load_file(at(rel_run), 0, &jerr);
  ck_assert_ptr_nonnull(run);
  json_t *cx = json_object_get(run, "context"), *list = json_array();
  json_t *bs = json_object_get(run, "benchmarks");
  for (size_t i = 0; i < json_array_size(bs); i++)
    json_array_append_new(
        list, json_pack("{s:O, s:s}", "name", json_object_get(json_array_get(bs, i), "name"), "verdict", verdict));
  json_t *v =
      json_pack("{s:s, s:{s:O, s:s}, s:{s:O, s:O, s:s}, s:o}", "metric", "time", "gpu", "name",
                json_object_get(json_object_get(cx, "gpu"), "name"), "uuid", "", "run", "date",
                json_object_get(cx, "date"), "host", json_object_get(cx, "host_name"), "commit", "x", "verdicts", list);
  ck_assert_ptr_nonnull(v);
  ck_assert_int_eq(json_dump_file(v, at(rel_out), 0), 0);
  json_decref(v);
  json_decref(run);
}

/* The history holds accepted runs: verdicts of a check that failed (against the baseline or A/B) add no row
 * (#56 D18). */
START_TEST(history_takes_accepted_runs_only) {
  const char *hist = make_dir("acc/hist");
  char csv[1200];
  FORMAT(csv, "%s/nvidia-h100-80gb-hbm3.csv", hist);
  write_run("acc/run.json", H100, 132, 3000.0, base_set, 3, 11);
  verdicts_for("acc/run.json", "acc/verdicts.json", "slower");
  json_error_t jerr;
  json_t *v = json_load_file(at("acc/verdicts.json"), 0, &jerr);
  ck_assert_ptr_nonnull(v);
  json_object_set_new(json_array_get(json_object_get(v, "verdicts"), 1), "fails", json_true());
  json_object_set_new(json_array_get(json_object_get(v, "verdicts"), 1), "compared_with", json_string("revision r1"));
  ck_assert_int_eq(json_dump_file(v, at("acc/verdicts.json"), 0), 0);
  json_decref(v);
  expect_gate(2, "history --history_dir=%s --verdicts=%s %s", hist, at("acc/verdicts.json"), at("acc/run.json"));
  expect_output("verdicts[1] (elementwise/add_float4/N:1) fails the gate: the history holds accepted runs only");
  ck_assert_int_ne(access(csv, F_OK), 0);
  verdicts_for("acc/run.json", "acc/verdicts.json", "same");
  expect_gate(0, "history --history_dir=%s --verdicts=%s %s", hist, at("acc/verdicts.json"), at("acc/run.json"));
  ck_assert(file_has(csv, "elementwise/add_float4/N:1"));
}
END_TEST

/* History rows are plain CSV, appended forever: a field that would break a row, or a file
 * whose last row is cut or that is not a history file, is refused and nothing is appended. */
START_TEST(history_rows_stay_parseable) {
  const char *hist = make_dir("csv/hist");
  char csv[1200];
  FORMAT(csv, "%s/nvidia-h100-80gb-hbm3.csv", hist);
  struct {
    const char *key, *value, *field;
  } bad[] = {{"commit", "abc\"def", "context.commit"},
             {"commit", "abc,def", "context.commit"},
             {"date", "2026-11-22\n05:00", "context.date"},
             {"commit", "abc\tdef", "context.commit"},
             {"date", "2026-11-22\r", "context.date"}};
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    write_run("csv/run.json", H100, 132, 3000.0, base_set, 3, 7);
    set_context("csv/run.json", bad[i].key, json_string(bad[i].value));
    verdicts_for("csv/run.json", "csv/verdicts.json", "same");
    expect_gate(2, "history --history_dir=%s --verdicts=%s %s", hist, at("csv/verdicts.json"), at("csv/run.json"));
    expect_output(bad[i].field);
    ck_assert_int_ne(access(csv, F_OK), 0);
  }
  write_run("csv/run.json", H100, 132, 3000.0, base_set, 3, 7);
  set_bench("csv/run.json", 1, "name", json_string("elementwise/a,b/N:1"));
  verdicts_for("csv/run.json", "csv/verdicts.json", "same");
  expect_gate(2, "history --history_dir=%s --verdicts=%s %s", hist, at("csv/verdicts.json"), at("csv/run.json"));
  expect_output("elementwise/a,b/N:1");
  write_run("csv/run.json", H100, 132, 3000.0, base_set, 3, 7);
  verdicts_for("csv/run.json", "csv/verdicts.json", "same,\"odd\"");
  expect_gate(2, "history --history_dir=%s --verdicts=%s %s", hist, at("csv/verdicts.json"), at("csv/run.json"));
  expect_output("verdicts[0].verdict");
  ck_assert_int_ne(access(csv, F_OK), 0);
  /* A verdict word the renderer does not know would make it refuse the whole file. */
  verdicts_for("csv/run.json", "csv/verdicts.json", "bogus");
  expect_gate(2, "history --history_dir=%s --verdicts=%s %s", hist, at("csv/verdicts.json"), at("csv/run.json"));
  expect_output("field verdicts[0].verdict: 'bogus' is not a verdict");
  ck_assert_int_ne(access(csv, F_OK), 0);

  /* The file as found: a cut last row, or not a history file, is left alone. */
  verdicts_for("csv/run.json", "csv/verdicts.json", "same");
  const char *cut = "date,commit,gpu,benchmark,median_ns,bytes_per_second,noise,verdict,l2_flush\n2026-11-22T0";
  write_text("csv/hist/nvidia-h100-80gb-hbm3.csv", cut);
  expect_gate(2, "history --history_dir=%s --verdicts=%s %s", hist, at("csv/verdicts.json"), at("csv/run.json"));
  expect_output("nvidia-h100-80gb-hbm3.csv does not end in a line break");
  char cmd[2400];
  FORMAT(cmd, "printf '%%s' '%s' | cmp -s - '%s'", cut, csv);
  ck_assert_int_eq(system(cmd), 0);
  write_text("csv/hist/nvidia-h100-80gb-hbm3.csv", "name,value\nx,1\n");
  expect_gate(2, "history --history_dir=%s --verdicts=%s %s", hist, at("csv/verdicts.json"), at("csv/run.json"));
  expect_output("not a history header");
  ck_assert(file_has(csv, "^x,1$"));
  /* An empty file gets the header, with the threshold each verdict applied and the run's testbed. */
  write_text("csv/hist/nvidia-h100-80gb-hbm3.csv", "");
  set_context("csv/run.json", "testbed", json_string("H100 x2 NVLink | CPU | driver 1"));
  verdicts_for("csv/run.json", "csv/verdicts.json", "same");
  expect_gate(0, "history --history_dir=%s --verdicts=%s %s", hist, at("csv/verdicts.json"), at("csv/run.json"));
  FORMAT(cmd,
         "head -1 '%s' | grep -qx 'date,commit,gpu,benchmark,median_ns,bytes_per_second,noise,verdict,l2_flush,"
         "threshold,testbed' && test $(wc -l < '%s') -eq 4 && "
         "test $(grep -c ',same,write,,H100 x2 NVLink | CPU | driver 1$' '%s') -eq 3",
         csv, csv, csv);
  ck_assert_int_eq(system(cmd), 0);
  write_run("csv/run.json", H100, 132, 3000.0, base_set, 3, 7);
  verdicts_for("csv/run.json", "csv/verdicts.json", "same");
  /* One begun before l2_flush gains the new fields, its old rows with both empty and their "write" flush. */
  write_text("csv/hist/nvidia-h100-80gb-hbm3.csv",
             "date,commit,gpu,benchmark,median_ns,bytes_per_second,noise,verdict\n"
             "2026-11-20T00:00:00+00:00,abc,nvidia-h100-80gb-hbm3,elementwise/add/N:1,1000,1e+15,0.01,same\n");
  expect_gate(0, "history --history_dir=%s --verdicts=%s %s", hist, at("csv/verdicts.json"), at("csv/run.json"));
  FORMAT(cmd,
         "head -1 '%s' | grep -q ',l2_flush,threshold,testbed$' && test $(wc -l < '%s') -eq 5 && "
         "test $(grep -c ',same,write,,$' '%s') -eq 4",
         csv, csv, csv);
  ck_assert_int_eq(system(cmd), 0);
  /* A file with CRLF line ends (a checkout that converted them), which the renderer reads too:
   * appended to, its new rows in CRLF as well. */
  write_text("csv/hist/nvidia-h100-80gb-hbm3.csv",
             "date,commit,gpu,benchmark,median_ns,bytes_per_second,noise,verdict,l2_flush\r\n"
             "2026-11-21T00:00:00+00:00,abc,nvidia-h100-80gb-hbm3,elementwise/add/N:1,1000,1e+15,0.01,same,read\r\n");
  expect_gate(0, "history --history_dir=%s --verdicts=%s %s", hist, at("csv/verdicts.json"), at("csv/run.json"));
  FORMAT(cmd, "test $(wc -l < '%s') -eq 5 && test $(tr -cd '\\r' < '%s' | wc -c) -eq 5", csv, csv);
  ck_assert_msg(system(cmd) == 0, "CRLF history: not 5 rows all ending in CRLF");
}
END_TEST

/* Runs `gate ARGS` with its files limited to `bytes` (RLIMIT_FSIZE; SIGXFSZ ignored, so that a
 * write past it fails with EFBIG, as on a full disk), output in gate_output; its exit status. */
static int gate_with_file_limit(rlim_t bytes, const char *args) {
  char out[1024], cmd[8192];
  FORMAT(out, "%s/gate.out", dir);
  FORMAT(cmd, "%s %s >'%s' 2>&1", gate_bin, args, out);
  pid_t pid = fork();
  ck_assert_int_ge(pid, 0);
  if (pid == 0) {
    struct rlimit rl = {bytes, bytes};
    signal(SIGXFSZ, SIG_IGN);
    if (setrlimit(RLIMIT_FSIZE, &rl) != 0) _exit(126);
    execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
    _exit(127);
  }
  int st;
  ck_assert_int_eq(waitpid(pid, &st, 0), pid);
  read_gate_output(out);
  return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static long file_size(const char *path) {
  struct stat st;
  return stat(path, &st) == 0 ? (long)st.st_size : -1;
}

/* gate history appends all or nothing: a write that fails part way (a full disk, here a file size
 * limit) leaves the old file as it was, no temporary file, and exit 2; two appends at once both
 * land; a row of the wrong field count already there is refused, naming its line. */
START_TEST(history_appends_all_or_nothing) {
  const char *hist = make_dir("all/hist");
  char csv[1200], kept[1200], cmd[4096], args[4096];
  FORMAT(csv, "%s/nvidia-h100-80gb-hbm3.csv", hist);
  FORMAT(kept, "%s/kept.csv", at("all"));
  write_run("all/run.json", H100, 132, 3000.0, base_set, 3, 9);
  verdicts_for("all/run.json", "all/verdicts.json", "same");
  FILE *f = fopen(csv, "w");
  ck_assert_ptr_nonnull(f);
  fputs("date,commit,gpu,benchmark,median_ns,bytes_per_second,noise,verdict,l2_flush\n", f);
  for (int i = 0; i < 40; i++)
    fprintf(f, "2026-11-21T00:00:%02d+00:00,abc,nvidia-h100-80gb-hbm3,elementwise/add/N:1,1000,1e+15,0.01,same,read\n",
            i);
  ck_assert_int_eq(fclose(f), 0);
  FORMAT(cmd, "cp '%s' '%s'", csv, kept);
  ck_assert_int_eq(system(cmd), 0);
  FORMAT(args, "history --history_dir=%s --verdicts=%s %s", hist, at("all/verdicts.json"), at("all/run.json"));
  /* Room for the old rows and a few bytes more: the new rows do not fit. */
  int rc = gate_with_file_limit((rlim_t)file_size(csv) + 40, args);
  ck_assert_msg(rc == 2, "gate exited %d, expected 2; its output:\n%s", rc, gate_output);
  expect_output("nvidia-h100-80gb-hbm3.csv");
  expect_output("nothing was appended");
  FORMAT(cmd, "cmp -s '%s' '%s'", csv, kept);
  ck_assert_msg(system(cmd) == 0, "the history file changed on a failed append");
  FORMAT(cmd, "test -z \"$(ls '%s' | grep -v '^nvidia-h100-80gb-hbm3.csv$')\"", hist);
  ck_assert_msg(system(cmd) == 0, "a temporary file was left in %s", hist);
  /* With room, the rows are appended after the old ones. */
  expect_gate(0, "%s", args);
  /* (the old rows as they were, with the two fields a 9-field file gains, empty) */
  FORMAT(cmd,
         "test $(wc -l < '%s') -eq 44 && tail -n +2 '%s' > '%s.rows' && sed -n '2,41s/,,$//p' '%s' | cmp -s - "
         "'%s.rows'",
         csv, kept, kept, csv, kept);
  ck_assert_int_eq(system(cmd), 0);

  /* Two appends at once, of two other runs each round: both land (they take turns on the folder's lock). */
  char v1[1200], r1[1200], v2[1200], r2[1200], d[1200];
  FORMAT(d, "--history_dir=%s", hist);
  for (int round = 0; round < 5; round++) {
    char a[64], b[64], va[64], vb[64];
    FORMAT(a, "all/one%d.json", round);
    FORMAT(b, "all/other%d.json", round);
    FORMAT(va, "all/one%d_verdicts.json", round);
    FORMAT(vb, "all/other%d_verdicts.json", round);
    write_run(a, H100, 132, 3000.0, base_set, 3, 20 + 2 * (unsigned)round);
    write_run(b, H100, 132, 3000.0, base_set, 3, 21 + 2 * (unsigned)round);
    verdicts_for(a, va, "same");
    verdicts_for(b, vb, "same");
    FORMAT(v1, "--verdicts=%s", at(va));
    FORMAT(r1, "%s", at(a));
    FORMAT(v2, "--verdicts=%s", at(vb));
    FORMAT(r2, "%s", at(b));
    int go[2];
    ck_assert_int_eq(pipe(go), 0);
    char *a1[] = {"history", d, v1, r1, NULL}, *a2[] = {"history", d, v2, r2, NULL};
    pid_t p1 = start_gate(go, a1), p2 = start_gate(go, a2);
    close(go[0]);
    close(go[1]);
    ck_assert_int_eq(exit_status(p1), 0);
    ck_assert_int_eq(exit_status(p2), 0);
  }
  FORMAT(cmd, "test $(wc -l < '%s') -eq 74", csv);
  ck_assert_msg(system(cmd) == 0, "rows were lost by appends at once");

  /* A row of the wrong field count (a cut row that ends in a line break, or a hand edit). */
  FORMAT(cmd, "printf '2026-11-22T0,abc\\n' >> '%s' && cp '%s' '%s'", csv, csv, kept);
  ck_assert_int_eq(system(cmd), 0);
  expect_gate(2, "%s", args);
  expect_output("nvidia-h100-80gb-hbm3.csv: line 75 has 2 fields");
  expect_output("remove or complete that line");
  FORMAT(cmd, "cmp -s '%s' '%s'", csv, kept);
  ck_assert_int_eq(system(cmd), 0);
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
  slow[0].median_ns *= 1.10;
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

/* A --baselines folder that is not there (a typo) is an error before anything runs; a folder
 * without this GPU's file keeps passing with a warning (failing with --strict). */
START_TEST(baselines_folder_must_exist) {
  make_dir("typo");
  write_run("typo/run.json", H100, 132, 3000.0, base_set, 3, 8);
  char body[2048];
  FORMAT(body, "touch '%s'; cp '%s' \"$out\"\n", at("typo/ran"), at("typo/run.json"));
  const char *bench = make_bench("typo/fake_bench", body);
  expect_gate(2, "check --bench=%s --baselines=%s --out_dir=%s", bench, at("typo/baselinez"), at("typo"));
  expect_output("typo/baselinez");
  expect_output("no such folder");
  write_text("typo/file", "");
  expect_gate(2, "check --bench=%s --baselines=%s --out_dir=%s", bench, at("typo/file"), at("typo"));
  expect_output("typo/file: not a folder");
  ck_assert_int_ne(access(at("typo/ran"), F_OK), 0); /* the benchmark never ran */
  const char *empty = make_dir("typo/empty");
  expect_gate(0, "check --bench=%s --baselines=%s --out_dir=%s", bench, empty, at("typo"));
  expect_output("WARNING: no baseline");
  expect_gate(1, "check --bench=%s --baselines=%s --out_dir=%s --strict", bench, empty, at("typo"));
  /* A baseline that cannot be looked at (here a symlink loop) is not a missing one. */
  char cmd[1200];
  FORMAT(cmd, "ln -s nvidia-h100-80gb-hbm3.json '%s/nvidia-h100-80gb-hbm3.json'", empty);
  ck_assert_int_eq(system(cmd), 0);
  expect_gate(2, "check --bench=%s --baselines=%s --out_dir=%s", bench, empty, at("typo"));
  expect_output("cannot tell whether");
  write_run("typo/run2.json", H100, 132, 3000.0, base_set, 3, 2);
  expect_gate(2, "bless --baselines=%s %s %s", empty, at("typo/run.json"), at("typo/run2.json"));
  expect_output("cannot tell whether");
}
END_TEST

/* A family renamed, or never blessed, has none of its benchmarks in the baseline: every verdict is
 * "new" and nothing is compared. That is said loudly, on stderr and at the top of summary.md, naming
 * the family, the baseline and the fix, and fails with --strict; a run with only some new benchmarks
 * says how many are not gated. */
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
  expect_output("With --strict the check fails.");
  expect_output("FAIL: 3 benchmarks, 0 compared");
  ck_assert(file_has(at("renamed/out/summary.md"), "With --strict the check fails."));
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

/* A benchmark that exits 0 without writing the run JSON (--benchmark_list_tests, or its
 * own --benchmark_out) must not be judged by a stale file of an earlier check. */
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

/* A benchmark binary that is not there is bad input (exit 2), not a failed benchmark (1). */
START_TEST(missing_benchmark_is_bad_input) {
  const char *bl = make_dir("nobench/bl");
  expect_gate(2, "check --bench=%s --baselines=%s --out_dir=%s", at("nobench/fake_bench"), bl, at("nobench"));
  expect_output("nobench/fake_bench: no such file");
  write_text("nobench/fake_bench", "#!/bin/sh\nexit 0\n");
  ck_assert_int_eq(chmod(at("nobench/fake_bench"), 0644), 0);
  expect_gate(2, "check --bench=%s --baselines=%s --out_dir=%s", at("nobench/fake_bench"), bl, at("nobench"));
  expect_output("nobench/fake_bench: not executable");
  expect_gate(2, "check --bench=%s --baselines=%s --out_dir=%s", bl, bl, at("nobench"));
  expect_output("nobench/bl: not a file");
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

/* A report that cannot be written (a full disk, here /dev/full) fails the check (exit 2,
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

/* Bless says which benchmarks its runs could not back: a long benchmark is one context per run,
 * and three runs 4 % apart leave the test on contexts too little for a 3 % slowdown. */
START_TEST(bless_warns_when_runs_cannot_back_the_tolerance) {
  const char *bl = make_dir("weak/bl");
  char runs[3][1024];
  for (int r = 0; r < 3; r++) {
    fake_bench b[2] = {{"elementwise/steady/N:1", 300000}, {"elementwise/wide/N:1", 300000 * (1 + 0.04 * (r - 1))}};
    char name[64];
    FORMAT(name, "weak/run%d.json", r);
    write_run(name, H100, 132, 3000.0, b, 2, 60 + (unsigned)r);
    FORMAT(runs[r], "%s", at(name));
  }
  expect_gate(0, "bless --baselines=%s %s %s %s", bl, runs[0], runs[1], runs[2]);
  expect_output("could not reach p < 0.01");
  expect_output("elementwise/wide/N:1: tolerance 3.0 %, needs +");
  /* With a tolerance the runs can back, no warning. */
  expect_gate(0, "bless --baselines=%s --tolerance=0.5 %s %s %s", bl, runs[0], runs[1], runs[2]);
  ck_assert_msg(strstr(gate_output, "could not reach") == NULL, "%s", gate_output);
}
END_TEST

/* The warning judges the contexts the gate's test uses: one interrupted context (60 us among 16 of
 * 10 us, as on an H100 in the soak of 2026-11-25) is set aside there (kept_contexts), and kept, it
 * made bless say a 3 % slowdown of such benchmarks could not be seen (needs +14 to +24 %). */
START_TEST(bless_warns_on_the_contexts_the_gate_tests) {
  const char *bl = make_dir("interrupted/bl");
  char runs[3][1024];
  for (int r = 0; r < 3; r++) {
    fake_bench b[1] = {{"reduce/short/N:1", 10000}};
    char name[64];
    FORMAT(name, "interrupted/run%d.json", r);
    write_run(name, H100, 132, 3000.0, b, 1, 70 + (unsigned)r);
    double medians[16];
    for (int k = 0; k < 16; k++) medians[k] = 10000 * (1 + 0.004 * ((k * 7 + r) % 5 - 2) / 2);
    if (r == 1) medians[5] = 60000;
    set_contexts(name, 0, medians, 16);
    FORMAT(runs[r], "%s", at(name));
  }
  expect_gate(0, "bless --baselines=%s %s %s %s", bl, runs[0], runs[1], runs[2]);
  ck_assert_msg(strstr(gate_output, "could not reach") == NULL, "%s", gate_output);
}
END_TEST

/* A benchmark that no GPU of some kind in the baseline ran is judged against other kinds on a GPU
 * of that kind (compare.h): bless names it, and is quiet once a GPU of that kind ran it. */
START_TEST(bless_names_benchmarks_no_gpu_of_a_kind_ran) {
  const char *bl = make_dir("kinds/bl");
  const fake_bench more[4] = {base_set[0], base_set[1], base_set[2], {"elementwise/add_v2/N:1", 900}};
  static const struct {
    const char *uuid;
    double copy;
    int with_v2;
  } r[] = {{"GPU-A1", 3000, 1}, {"GPU-A2", 3001, 1}, {"GPU-B1", 3015, 0}, {"GPU-B2", 3016, 1}};
  char runs[4][1024];
  for (unsigned i = 0; i < 4; i++) {
    char name[64];
    FORMAT(name, "kinds/run%u.json", i);
    write_run(name, H100, 132, r[i].copy, r[i].with_v2 ? more : base_set, r[i].with_v2 ? 4 : 3, 80 + i);
    set_gpu_uuid(name, r[i].uuid);
    FORMAT(runs[i], "%s", at(name));
  }
  expect_gate(0, "bless --baselines=%s %s %s", bl, runs[0], runs[1]);
  ck_assert_msg(strstr(gate_output, "no run from a GPU of the kind") == NULL, "%s", gate_output);
  expect_gate(0, "bless --baselines=%s --add %s", bl, runs[2]);
  expect_output(
      "1 benchmark(s) (e.g. elementwise/add_v2/N:1) have no run from a GPU of the kind of GPU-B1 "
      "(copy probe 3015 GB/s)");
  expect_gate(0, "bless --baselines=%s --add %s", bl, runs[3]);
  ck_assert_msg(strstr(gate_output, "no run from a GPU of the kind") == NULL, "%s", gate_output);
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
  Suite *s = suite_create("gate_cli");
  TCase *tc = tcase_create("cli");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, help_and_repetitions);
  tcase_add_test(tc, missing_unreadable_and_bad_inputs_differ);
  tcase_add_test(tc, gpu_name_must_name_a_file);
  tcase_add_test(tc, unphysical_figures_are_refused);
  tcase_add_test(tc, one_run_counts_once);
  tcase_add_test(tc, baseline_has_a_line_per_run_and_per_measure);
  tcase_add_test(tc, bless_add_joins_the_old_runs);
  tcase_add_test(tc, bless_add_refuses_a_slower_run);
  tcase_add_test(tc, bless_only_replaces_the_benchmarks_it_names);
  tcase_add_test(tc, bless_add_completes_a_run_blessed_in_part);
  tcase_add_test(tc, long_benchmarks_in_more_contexts);
  tcase_add_test(tc, bless_warns_when_runs_cannot_back_the_tolerance);
  tcase_add_test(tc, bless_warns_on_the_contexts_the_gate_tests);
  tcase_add_test(tc, bless_names_benchmarks_no_gpu_of_a_kind_ran);
  tcase_add_test(tc, concurrent_blesses_keep_both_families);
  tcase_add_test(tc, verdicts_name_their_gpu_and_run);
  tcase_add_test(tc, history_takes_its_own_runs_verdicts);
  tcase_add_test(tc, links_are_written_through);
  tcase_add_test(tc, a_baseline_in_a_file_per_family);
  tcase_add_test(tc, history_takes_accepted_runs_only);
  tcase_add_test(tc, rebless_keeps_other_testbeds_runs);
  tcase_add_test(tc, history_rows_stay_parseable);
  tcase_add_test(tc, history_appends_all_or_nothing);
  tcase_add_test(tc, a_pipe_in_a_name_keeps_the_summary_table);
  tcase_add_test(tc, baselines_folder_must_exist);
  tcase_add_test(tc, a_family_not_in_the_baseline_is_said);
  tcase_add_test(tc, stale_outputs_are_never_judged);
  tcase_add_test(tc, compare_rejudges_a_run_with_its_re_measure);
  tcase_add_test(tc, missing_benchmark_is_bad_input);
  tcase_add_test(tc, benchmark_dies_with_the_gate);
  tcase_add_test(tc, failed_writes_fail_the_check);
  tcase_add_test(tc, warmup_is_given_by_the_gate_and_must_match);
  tcase_add_test(tc, warmup_is_a_familys);
  suite_add_tcase(s, tc);
  return run_suite(s);
}
