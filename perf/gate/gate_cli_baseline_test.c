/* CPU tests of the baseline files the gate binary writes: a line per run and per measure, concurrent blesses of two
 * families, re-blessing one testbed, a baseline kept as a file per family, and baselines and history files that are
 * symbolic links. */
#define _GNU_SOURCE
#include <check.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "perf/gate/figures.h"
#include "perf/gate/testutil.h"
#include "tests/support/check_run.h"

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
  /* Whether the baseline has runs of a testbed (ci/gate.sh: else A/B for every benchmark), as gate check decides. */
  expect_gate(0, "testbeds --has_runs='tb two' %s/nvidia-h100-80gb-hbm3.json", bl);
  expect_gate(1, "testbeds --has_runs='tb three' %s/nvidia-h100-80gb-hbm3.json", bl);
  expect_gate(1, "testbeds --has_runs='tb' %s/nvidia-h100-80gb-hbm3.json", bl); /* whole names only */
  expect_gate(2, "testbeds --has_runs='tb two' %s/no-such-gpu.json", bl);
  /* --uncovered with no benchmark binary would list nothing: a usage error, not "all covered". */
  expect_gate(2, "testbeds --uncovered='tb three' %s/nvidia-h100-80gb-hbm3.json", bl);
  expect_output("needs BASELINE.json and one or more benchmark binaries");
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
  bless_three_runs(bl, "pf", two, 3, 60);
  write_run("pf/slow.json", H100, 132, 3000.0, slow, 3, 70);
  expect_gate(1, "compare --min_delta_us=0.01 --baselines=%s %s", bl, at("pf/slow.json"));
  char file[1200], folder[1200], copy_json[1400], ew_json[1400];
  FORMAT(file, "%s/nvidia-h100-80gb-hbm3.json", bl);
  FORMAT(folder, "%s/nvidia-h100-80gb-hbm3", bl);
  FORMAT(copy_json, "%s/copy.json", folder);
  FORMAT(ew_json, "%s/elementwise.json", folder);
  /* A migrate that cannot write every family's file (a full disk: here each file limited to between the sizes of
   * the two) leaves the baseline as it was: no folder with a part of the families, no temporary folder. */
  char trial[1200], cmd[4000];
  FORMAT(trial, "%s/../pf_trial", bl);
  FORMAT(cmd, "rm -rf '%s' && mkdir -p '%s' && cp '%s' '%s/'", trial, trial, file, trial);
  ck_assert_int_eq(system(cmd), 0);
  FORMAT(cmd, "migrate --per_family %s/nvidia-h100-80gb-hbm3.json", trial);
  expect_gate(0, "%s", cmd);
  struct stat copy_st, ew_st;
  FORMAT(cmd, "%s/nvidia-h100-80gb-hbm3/copy.json", trial);
  ck_assert_int_eq(stat(cmd, &copy_st), 0);
  FORMAT(cmd, "%s/nvidia-h100-80gb-hbm3/elementwise.json", trial);
  ck_assert_int_eq(stat(cmd, &ew_st), 0);
  ck_assert_int_lt(copy_st.st_size, ew_st.st_size); /* copy's written first, and fits */
  FORMAT(cmd, "cp '%s' '%s/before.json'", file, trial);
  ck_assert_int_eq(system(cmd), 0);
  FORMAT(cmd, "migrate --per_family %s", file);
  ck_assert_int_eq(gate_with_file_limit((rlim_t)(copy_st.st_size + ew_st.st_size) / 2, cmd), 2);
  ck_assert_msg(access(folder, F_OK) != 0, "a part of the families was left in %s", folder);
  expect_output("File too large; nothing was changed");
  expect_output(file);
  FORMAT(cmd, "cmp -s '%s' '%s/before.json' && [ \"$(ls -A '%s')\" = nvidia-h100-80gb-hbm3.json ]", file, trial, bl);
  ck_assert_msg(system(cmd) == 0, "the baseline's folder is not as it was");
  expect_gate(1, "compare --min_delta_us=0.01 --baselines=%s %s", bl, at("pf/slow.json"));
  expect_gate(0, "migrate --per_family %s", file);
  expect_output("a file per family");
  ck_assert_int_ne(access(file, F_OK), 0);
  ck_assert_int_eq(access(copy_json, F_OK), 0);
  ck_assert_int_eq(access(ew_json, F_OK), 0);
  ck_assert(!file_has(copy_json, "elementwise/"));
  expect_gate(1, "compare --min_delta_us=0.01 --baselines=%s %s", bl, at("pf/slow.json"));
  expect_output("elementwise/add/N:1");
  /* The file and the folder both: which is the baseline only the user knows (the file was read, the folder never). */
  FORMAT(cmd, "cp '%s/before.json' '%s'", trial, file);
  ck_assert_int_eq(system(cmd), 0);
  expect_gate(2, "compare --min_delta_us=0.01 --baselines=%s %s", bl, at("pf/slow.json"));
  expect_output("nvidia-h100-80gb-hbm3.json and ");
  expect_output("nvidia-h100-80gb-hbm3/ both hold a baseline of nvidia-h100-80gb-hbm3");
  expect_output("keep one. If `gate migrate --per_family");
  expect_gate(2, "bless --baselines=%s --add %s", bl, at("pf/slow.json"));
  expect_output("both hold a baseline");
  ck_assert_int_eq(remove(file), 0);
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

int main(int argc, char **argv) {
  if (test_setup(argc, argv)) return 2;
  Suite *s = suite_create("gate_cli_baseline");
  TCase *tc = tcase_create("cli_baseline");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, baseline_has_a_line_per_run_and_per_measure);
  tcase_add_test(tc, concurrent_blesses_keep_both_families);
  tcase_add_test(tc, links_are_written_through);
  tcase_add_test(tc, a_baseline_in_a_file_per_family);
  tcase_add_test(tc, rebless_keeps_other_testbeds_runs);
  suite_add_tcase(s, tc);
  return run_suite(s);
}
