/* --out_dir of gate compare and gate check (issue #58): a folder that does not exist is made (as
 * mkdir -p would, like the renderer's output folders and ci/soak.sh's), and one that cannot be made
 * is refused before anything is judged or measured (exit 2, naming the flag), never at the end. */
#define _GNU_SOURCE
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "perf/gate/figures.h"
#include "perf/gate/testutil.h"
#include "tests/support/check_run.h"

static int is_folder(const char *path) {
  struct stat st;
  return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

START_TEST(compare_makes_its_out_dir) {
  const char *bl = baseline_dir("cmp/bl");
  write_run("cmp/x_bench.json", H100, 132, 3000.0, base_set, 3, 20);
  char run[1200];
  FORMAT(run, "%s", at("cmp/x_bench.json"));
  ck_assert(!is_folder(at("cmp/new")));
  expect_gate(0, "compare --baselines=%s --out_dir=%s %s", bl, at("cmp/new/round1"), run);
  ck_assert(file_has(at("cmp/new/round1/summary.md"), "## x_bench on NVIDIA H100 80GB HBM3: passed"));
  ck_assert(file_has(at("cmp/new/round1/verdicts.json"), "\"same\""));
  /* Again into the folder it made: the reports are replaced. */
  expect_gate(0, "compare --baselines=%s --out_dir=%s %s", bl, at("cmp/new/round1"), run);
  ck_assert(file_has(at("cmp/new/round1/summary.md"), "## x_bench on NVIDIA H100 80GB HBM3: passed"));
}
END_TEST

/* A file where a folder of --out_dir should be: exit 2 before the run is judged, naming the flag. */
START_TEST(compare_refuses_an_out_dir_it_cannot_make) {
  const char *bl = baseline_dir("bad/bl");
  write_run("bad/x_bench.json", H100, 132, 3000.0, base_set, 3, 21);
  write_text("bad/file", "not a folder\n");
  char run[1200];
  FORMAT(run, "%s", at("bad/x_bench.json"));
  expect_gate(2, "compare --baselines=%s --out_dir=%s %s", bl, at("bad/file/out"), run);
  expect_output("--out_dir=");
  expect_output("bad/file: not a folder");
  ck_assert_msg(!strstr(gate_output, "elementwise/add"), "judged before refusing --out_dir:\n%s", gate_output);
  expect_gate(2, "compare --baselines=%s --out_dir=%s %s", bl, at("bad/file"), run);
  expect_output("bad/file: not a folder");
  ck_assert_msg(!strstr(gate_output, "elementwise/add"), "judged before refusing --out_dir:\n%s", gate_output);
}
END_TEST

/* gate check does the same: the run JSON and the reports go to the folder it made. */
START_TEST(check_makes_its_out_dir) {
  const char *bl = baseline_dir("chk/bl");
  write_run("chk/run.json", H100, 132, 3000.0, base_set, 3, 22);
  char body[2048];
  FORMAT(body, "cp '%s' \"$out\"\n", at("chk/run.json"));
  const char *bench = make_bench("chk/x_bench", body);
  expect_gate(0, "check --bench=%s --baselines=%s --out_dir=%s", bench, bl, at("chk/new/out"));
  ck_assert(file_has(at("chk/new/out/x_bench.json"), "elementwise/add/N:1"));
  ck_assert(file_has(at("chk/new/out/summary.md"), "## x_bench on NVIDIA H100 80GB HBM3: passed"));
  write_text("chk/file", "not a folder\n");
  expect_gate(2, "check --bench=%s --baselines=%s --out_dir=%s", bench, bl, at("chk/file/out"));
  expect_output("--out_dir=");
  expect_output("chk/file: not a folder");
}
END_TEST

int main(int argc, char **argv) {
  if (test_setup(argc, argv)) return 2;
  Suite *s = suite_create("out_dir");
  TCase *tc = tcase_create("out_dir");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, compare_makes_its_out_dir);
  tcase_add_test(tc, compare_refuses_an_out_dir_it_cannot_make);
  tcase_add_test(tc, check_makes_its_out_dir);
  suite_add_tcase(s, tc);
  return run_suite(s);
}
