/* CPU test of leave_one_gpu_out on a baseline with a known answer: four H100s, three of one GPU kind
 * (copy probe 3000 GB/s) and one of another (3015 GB/s, 0.5 % away: outside the gate's 0.2 %
 * window). Two long benchmarks (100 us): GPU A3 runs long/a 6 % slower than A1 and A2, and B1
 * runs long/b 6 % slower than the A GPU kind. Left out in turn:
 *   A1, A2: judged against their GPU kind, which holds A3 and so allows 3 x its spread: same;
 *   A3: against A1 and A2 (its kind), long/a +6 %: slower, a false alarm of its kind;
 *   B1: no GPU of its kind left, so against the A kind alone, long/b +6 %: slower, "no kind".
 * The tool must count both, tell them apart, and exit 1; with --k_noise=0.9 A1's thresholds are within the
 * goal and the false alarms the same. */
#define _POSIX_C_SOURCE 200809L /* popen */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "perf/gate/testutil.h"
#include "tests/support/check_run.h"

static const char *loo_bin;
static char loo_output[65536];

/* Runs the tool with flags (e.g. "--list ") on path; returns its exit status, output in loo_output. */
static int loo(const char *path, const char *flags) {
  char cmd[2048];
  FORMAT(cmd, "'%s' %s'%s' 2>&1", loo_bin, flags, path);
  FILE *p = popen(cmd, "r");
  ck_assert_ptr_nonnull(p);
  size_t n = fread(loo_output, 1, sizeof loo_output - 1, p);
  loo_output[n] = '\0';
  int st = pclose(p);
  return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* The row of the per-GPU table that starts with uuid: its six counts. */
static void row_of(const char *uuid, size_t v[6]) {
  const char *r = strstr(loo_output, uuid);
  ck_assert_msg(r != NULL, "no row for %s in:\n%s", uuid, loo_output);
  ck_assert_int_eq(sscanf(r + strlen(uuid), "%zu %zu %zu %zu %zu %zu", &v[0], &v[1], &v[2], &v[3], &v[4], &v[5]), 6);
}

/* A run of GPU uuid (copy probe copy GB/s) with long/a and long/b at 100 us times slow_a and slow_b,
 * written as file name and added to the bless arguments args (used of cap bytes taken). */
static void add_run(const char *name, const char *uuid, double copy, double slow_a, double slow_b, unsigned seed,
                    char *args, size_t cap, size_t *used) {
  const fake_bench b[2] = {{"x/long_a/N:1", 100000 * slow_a}, {"x/long_b/N:1", 100000 * slow_b}};
  write_run(name, H100, 132, copy, b, 2, seed);
  set_gpu_uuid(name, uuid);
  *used += (size_t)snprintf(args + *used, cap - *used, " %s", at(name));
  ck_assert_uint_lt(*used, cap);
}

START_TEST(false_alarms_of_its_kind_and_of_a_missing_kind_are_told_apart) {
  const char *bl = make_dir("bl");
  static const struct {
    const char *uuid;
    double copy, slow_a, slow_b;
  } gpus[] = {{"GPU-A1", 3000, 1, 1}, {"GPU-A2", 3001, 1, 1}, {"GPU-A3", 3000.5, 1.06, 1}, {"GPU-B1", 3015, 1, 1.06}};
  char args[8192] = "";
  size_t used = 0;
  for (unsigned g = 0; g < 4; g++)
    for (unsigned r = 0; r < 2; r++) { /* two runs per GPU */
      char name[64];
      FORMAT(name, "run_%u_%u.json", g, r);
      add_run(name, gpus[g].uuid, gpus[g].copy, gpus[g].slow_a, gpus[g].slow_b, 40 + 2 * g + r, args, sizeof args,
              &used);
    }
  expect_gate(0, "bless --baselines=%s%s", bl, args);
  char path[1024];
  FORMAT(path, "%s/nvidia-h100-80gb-hbm3.json", bl);

  ck_assert_int_eq(loo(path, ""), 1); /* a GPU left out got "slower": review before committing */
  size_t v[6];                        /* runs, verdicts, over goal, slower, no kind, faster */
  row_of("GPU-A1", v);
  ck_assert_uint_eq(v[0], 2);
  ck_assert_uint_eq(v[1], 4);
  ck_assert_uint_eq(v[2], 2); /* long_a: A3 in its kind, about 3 % over their median, allows 3 x that */
  ck_assert_uint_eq(v[3], 0);
  row_of("GPU-A3", v);
  ck_assert_uint_eq(v[3], 2); /* long_a in both runs */
  ck_assert_uint_eq(v[4], 0); /* judged against its kind */
  row_of("GPU-B1", v);
  ck_assert_uint_eq(v[3], 2); /* long_b in both runs */
  ck_assert_uint_eq(v[4], 2); /* no GPU of its kind left */
  ck_assert_msg(strstr(loo_output, "4 GPUs, 8 runs: 16 verdicts") && strstr(loo_output, ", 4 slower, ") &&
                    strstr(loo_output, "2 of the slower were judged against other kinds alone"),
                "%s", loo_output);

  ck_assert_int_eq(loo(path, "--list "), 1);
  ck_assert_msg(strstr(loo_output, "slower   x/long_a/N:1 run 4:") && strstr(loo_output, "its kind)"), "%s",
                loo_output);
  ck_assert_msg(strstr(loo_output, "slower   x/long_b/N:1 run 6:") && strstr(loo_output, "other kinds)"), "%s",
                loo_output);

  /* Another k_noise: A1's long_a (noise about 3 %) allowed max(3 %, 0.9 x noise), the goal; the false alarms stay. */
  ck_assert_int_eq(loo(path, "--list --k_noise=0.9 "), 1);
  ck_assert_msg(strstr(loo_output, "0.9 x noise): not the gate's k_noise (3)") != NULL, "%s", loo_output);
  row_of("GPU-A1", v);
  ck_assert_msg(v[2] == 0 && v[3] == 0, "%s", loo_output);
  ck_assert_msg(strstr(loo_output, ", 4 slower, ") != NULL, "%s", loo_output);
}
END_TEST

/* --own: one run left out at a time, of GPUs with three runs or more, judged against its GPU's other runs.
 * A1 has three runs alike; A2 three, one of them 6 % slower in long/a; B1 two runs, so no row. Left out,
 * A2's slow run is judged against its two fast runs (own GPU, 2 % allowed): slower; each of A2's fast runs
 * against a fast and the slow one, whose median it is under: same. */
START_TEST(own_leaves_one_run_out_and_judges_it_against_its_gpus_other_runs) {
  const char *bl = make_dir("bl_own");
  static const struct {
    const char *uuid;
    unsigned runs;
    double copy;
  } gpus[] = {{"GPU-A1", 3, 3000}, {"GPU-A2", 3, 3001}, {"GPU-B1", 2, 3015}};
  char args[8192] = "";
  size_t used = 0;
  for (unsigned g = 0; g < 3; g++)
    for (unsigned r = 0; r < gpus[g].runs; r++) {
      char name[64];
      FORMAT(name, "own_%u_%u.json", g, r);
      add_run(name, gpus[g].uuid, gpus[g].copy, g == 1 && r == 2 ? 1.06 : 1, 1, 60 + 3 * g + r, args, sizeof args,
              &used);
    }
  expect_gate(0, "bless --baselines=%s%s", bl, args);
  char path[1024];
  FORMAT(path, "%s/nvidia-h100-80gb-hbm3.json", bl);

  ck_assert_int_eq(loo(path, "--own --list "), 1);
  ck_assert_msg(strstr(loo_output, "one run left out at a time") != NULL, "%s", loo_output);
  ck_assert_msg(strstr(loo_output, "GPU-B1") == NULL, "B1 has two runs: %s", loo_output);
  size_t v[6]; /* runs, verdicts, over goal, slower, no kind, faster */
  row_of("GPU-A1", v);
  ck_assert_msg(v[0] == 3 && v[1] == 6 && v[3] == 0, "%s", loo_output);
  row_of("GPU-A2", v);
  ck_assert_msg(v[0] == 3 && v[1] == 6 && v[3] == 1, "%s", loo_output);
  ck_assert_msg(strstr(loo_output, "slower   x/long_a/N:1 run 5:") && strstr(loo_output, "own GPU)"), "%s", loo_output);
  ck_assert_msg(strstr(loo_output, "2 GPUs, 6 runs: 12 verdicts") != NULL, "%s", loo_output);
}
END_TEST

START_TEST(bad_usage_and_unreadable_baselines_are_exit_2) {
  ck_assert_int_eq(loo(at("no_such_baseline.json"), ""), 2);
  ck_assert_msg(strstr(loo_output, "no_such_baseline.json") != NULL, "%s", loo_output);
  write_text("nvidia-h100-80gb-hbm3.json", "{ not json");
  ck_assert_int_eq(loo(at("nvidia-h100-80gb-hbm3.json"), ""), 2);
  static const char *const bad_k[] = {"--k_noise=0 ", "--k_noise=-1 ", "--k_noise=abc ", "--k_noise=2x ",
                                      "--k_noise=nan "};
  for (unsigned i = 0; i < sizeof bad_k / sizeof *bad_k; i++) {
    ck_assert_int_eq(loo(at("nvidia-h100-80gb-hbm3.json"), bad_k[i]), 2);
    ck_assert_msg(strstr(loo_output, "--k_noise=") && strstr(loo_output, "want a number in (0, 100)"), "%s: %s",
                  bad_k[i], loo_output);
  }
  ck_assert_int_eq(loo(at("nvidia-h100-80gb-hbm3.json"), "--no_such_flag "), 2);
  ck_assert_msg(strstr(loo_output, "usage: leave_one_gpu_out") != NULL, "%s", loo_output);
}
END_TEST

int main(int argc, char **argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: %s GATE_BINARY LEAVE_ONE_GPU_OUT_BINARY\n", argv[0]);
    return 2;
  }
  loo_bin = argv[2];
  char *setup_args[] = {argv[0], argv[1], NULL};
  if (test_setup(2, setup_args)) return 2;
  Suite *s = suite_create("leave_one_gpu_out");
  TCase *tc = tcase_create("tool");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, false_alarms_of_its_kind_and_of_a_missing_kind_are_told_apart);
  tcase_add_test(tc, own_leaves_one_run_out_and_judges_it_against_its_gpus_other_runs);
  tcase_add_test(tc, bad_usage_and_unreadable_baselines_are_exit_2);
  suite_add_tcase(s, tc);
  return run_suite(s);
}
