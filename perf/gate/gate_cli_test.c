/* CPU tests of the gate binary's commands end to end: what a user or CI gets
 * for bad input, concurrent or interrupted runs, and failed writes. Exit codes:
 * 0 pass, 1 confirmed regression (or a failed benchmark), 2 bad input or usage. */
#define _GNU_SOURCE
#include <check.h>
#include <errno.h>
#include <jansson.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "perf/gate/figures.h"
#include "perf/gate/testutil.h"

/* --help is not an error; --repetitions is a whole number of repetitions. */
START_TEST(help_and_repetitions) {
  expect_gate(0, "--help");
  expect_output("usage:");
  expect_gate(0, "check --help");
  expect_output("gate check");
  make_dir("reps/bl");
  write_run("reps/run.json", H100, 132, 3000.0, base_set, 3, 1);
  char body[2048];
  FORMAT(body, "echo \"$args\" > \"$out.args\"; cp '%s' \"$out\"\n", at("reps/run.json"));
  const char *bench = make_bench("reps/fake_bench", body);
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

int main(int argc, char **argv) {
  if (test_setup(argc, argv)) return 2;
  Suite *s = suite_create("gate_cli");
  TCase *tc = tcase_create("cli");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, help_and_repetitions);
  suite_add_tcase(s, tc);
  SRunner *sr = srunner_create(s);
  srunner_run_all(sr, CK_VERBOSE);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
