/* CPU tests of the gate binary's commands end to end: what a user or CI gets
 * for bad input, concurrent or interrupted runs, and failed writes. Exit codes:
 * 0 pass, 1 confirmed regression (or a failed benchmark), 2 bad input or usage. */
#define _GNU_SOURCE
#include <check.h>
#include <errno.h>
#include <fcntl.h>
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
  expect_gate(2, "bless --baselines=%s %s", ro, at("inputs/run.json"));
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

int main(int argc, char **argv) {
  if (test_setup(argc, argv)) return 2;
  Suite *s = suite_create("gate_cli");
  TCase *tc = tcase_create("cli");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, help_and_repetitions);
  tcase_add_test(tc, missing_unreadable_and_bad_inputs_differ);
  tcase_add_test(tc, gpu_name_must_name_a_file);
  suite_add_tcase(s, tc);
  SRunner *sr = srunner_create(s);
  srunner_run_all(sr, CK_VERBOSE);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
