/* CPU tests of gate check in A/B mode (perf/gate/ab.c) end to end, with stand-in benchmark binaries:
 * the base revision's and the change's builds are run in turn (ABBA) on one GPU, judged with the
 * gate's statistics (the base's processes as a runner's own runs) and the same confirmation, and an
 * identical binary is reported unchanged without being run. */
#define _GNU_SOURCE
#include <check.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "perf/gate/testutil.h"
#include "tests/support/check_run.h"

/* Run file side/<k>.json: base_set on GPU-ab of testbed "fixture x1", each benchmark in 16 contexts
 * spread +-0.4 %, add (benchmark 0) `scale` times its base time. */
static void ab_run(const char *side, unsigned k, unsigned seed, double scale) {
  char file[256];
  FORMAT(file, "%s/%u.json", side, k);
  write_run(file, H100, 132, 3000.0, base_set, 3, seed);
  set_gpu_uuid(file, "GPU-ab");
  set_context(file, "testbed", json_string("fixture x1"));
  for (size_t b = 0; b < 3; b++) {
    double med[16];
    for (int j = 0; j < 16; j++) med[j] = base_set[b].median_ns * (b == 0 ? scale : 1.0) * (1 + 0.002 * (j % 5 - 2));
    set_contexts(file, b, med, 16);
  }
}

/* A stand-in benchmark binary `side`/bench that writes side/1.json, side/2.json, ... in turn, and
 * notes each run in order.log. */
static const char *side_bench(const char *side) {
  char body[2048], rel[256];
  const char *d = make_dir(side);
  FORMAT(body, "n=$(cat '%s/count' 2>/dev/null || echo 0); n=$((n + 1)); echo $n > '%s/count'\n"
         "echo \"%s $n\" >> '%s/order.log'; cp '%s/'$n.json \"$out\"\n", d, d, side, dir, d);
  FORMAT(rel, "%s/bench", side);
  return make_bench(rel, body);
}

/* n runs of each side; the change's add at change_scale, and its k-th run (the re-measure) at recheck_scale. */
static void prepare(const char *base, const char *change, unsigned n, double change_scale, double recheck_scale) {
  make_dir(base);
  make_dir(change);
  for (unsigned k = 1; k <= n; k++) {
    ab_run(base, k, 100 * k + 1, 1.0);
    ab_run(change, k, 100 * k + 2, k == n ? recheck_scale : change_scale);
  }
}

static char *order(void) {
  static char text[512];
  FILE *f = fopen(at("order.log"), "r");
  size_t len = f ? fread(text, 1, sizeof text - 1, f) : 0;
  text[len] = '\0';
  if (f) fclose(f);
  return text;
}

START_TEST(unchanged_binary_is_not_measured) {
  write_text("order.log", "");
  const char *bl = make_dir("u/bl");
  const char *bench = side_bench("u/change");
  char copy[1024];
  FORMAT(copy, "cp '%s' '%s'", bench, at("u/base_bench"));
  ck_assert_int_eq(system(copy), 0);
  expect_gate(0, "check --bench=%s --against_bench=%s --against=rev1 --baselines=%s --out_dir=%s", bench,
              at("u/base_bench"), bl, at("u"));
  expect_output("unchanged (the benchmark binary and its kernels are identical on both sides): not measured");
  ck_assert(file_has(at("u/summary.md"), "A/B against rev1: unchanged"));
  ck_assert_str_eq(order(), ""); /* neither side ran */
  /* A benchmark the base does not have is new in this change: not compared, and not a failure. */
  expect_gate(0, "check --bench=%s --against_bench=%s --against=rev1 --baselines=%s --out_dir=%s", bench,
              at("u/none"), bl, at("u"));
  expect_output("new in this change");
}
END_TEST

START_TEST(same_speed_passes_and_says_what_it_was_compared_with) {
  write_text("order.log", "");
  const char *bl = make_dir("s/bl");
  prepare("s/base", "s/change", 3, 1.0, 1.0);
  const char *base = side_bench("s/base"), *change = side_bench("s/change");
  expect_gate(0, "check --bench=%s --against_bench=%s --against=rev1 --baselines=%s --out_dir=%s", change, base, bl,
              at("s"));
  expect_output("PASS: A/B against rev1, 3 compared, 0 slower");
  /* ABBA: base, change, change, base. */
  ck_assert_str_eq(order(), "s/base 1\ns/change 1\ns/change 2\ns/base 2\n");
  json_error_t jerr;
  json_t *v = json_load_file(at("s/verdicts.json"), 0, &jerr);
  ck_assert_msg(v != NULL, "%s", jerr.text);
  ck_assert_str_eq(json_string_value(json_object_get(v, "compared_with")), "revision rev1");
  ck_assert_str_eq(json_string_value(json_object_get(v, "testbed")), "fixture x1");
  json_t *e = json_array_get(json_object_get(v, "verdicts"), 0);
  ck_assert_str_eq(json_string_value(json_object_get(e, "verdict")), "same");
  ck_assert_str_eq(json_string_value(json_object_get(e, "reference")), "this_gpu"); /* its own GPU's base runs */
  ck_assert_int_eq(json_integer_value(json_object_get(e, "baseline_runs")), 2);
  ck_assert_int_eq(json_integer_value(json_object_get(e, "policy_version")), 4);
  json_decref(v);
  ck_assert(file_has(at("s/summary.md"), "A/B against rev1: passed"));
}
END_TEST

START_TEST(a_slowdown_fails_once_confirmed) {
  write_text("order.log", "");
  const char *bl = make_dir("f/bl");
  prepare("f/base", "f/change", 3, 1.05, 1.05);
  const char *base = side_bench("f/base"), *change = side_bench("f/change");
  /* base_set's kernels take 1-3 us: a floor of 0.01 us lets 5 % of them count. */
  expect_gate(1, "check --bench=%s --against_bench=%s --against=rev1 --min_delta_us=0.01 --baselines=%s --out_dir=%s",
              change, base, bl, at("f"));
  expect_output("REGRESSION elementwise/add/N:1: slower by +5.0%");
  expect_output("confirmed: first +5.0");
  /* The re-measure: a fresh change process, then a fresh base process. */
  ck_assert_str_eq(order(), "f/base 1\nf/change 1\nf/change 2\nf/base 2\nf/change 3\nf/base 3\n");
  json_error_t jerr;
  json_t *v = json_load_file(at("f/verdicts.json"), 0, &jerr);
  ck_assert_msg(v != NULL, "%s", jerr.text);
  json_t *e = json_array_get(json_object_get(v, "verdicts"), 0);
  ck_assert_str_eq(json_string_value(json_object_get(e, "verdict")), "slower");
  ck_assert(json_is_true(json_object_get(e, "fails")));
  json_t *why = json_object_get(e, "reasons");
  char reasons[256] = "";
  for (size_t i = 0; i < json_array_size(why); i++) {
    strcat(reasons, json_string_value(json_array_get(why, i)));
    strcat(reasons, " ");
  }
  ck_assert_str_eq(reasons, "beyond_threshold significant above_floor confirmed ");
  json_decref(v);
}
END_TEST

START_TEST(a_slowdown_not_confirmed_passes) {
  write_text("order.log", "");
  const char *bl = make_dir("n/bl");
  prepare("n/base", "n/change", 3, 1.05, 1.0);
  const char *base = side_bench("n/base"), *change = side_bench("n/change");
  expect_gate(0, "check --bench=%s --against_bench=%s --against=rev1 --min_delta_us=0.01 --baselines=%s --out_dir=%s",
              change, base, bl, at("n"));
  expect_output("not confirmed: re-measured");
}
END_TEST

/* gate check against a baseline that has no run of this runner's testbed: nothing is compared (another
 * testbed never stands in), the check passes and says so on stderr and in summary.md. */
START_TEST(a_testbed_without_baseline_runs_is_not_compared) {
  write_text("order.log", "");
  const char *bl = make_dir("t/bl");
  gate_figures base;
  char err[1024], path[1200];
  make_baseline(&base); /* runs of no testbed */
  FORMAT(path, "%s/nvidia-h100-80gb-hbm3.json", bl);
  ck_assert_msg(save_baseline(path, &base, err, sizeof err) == 0, "%s", err);
  free_figures(&base);
  prepare("t/base", "t/change", 1, 1.0, 1.0);
  const char *change = side_bench("t/change");
  expect_gate(0, "check --bench=%s --baselines=%s --out_dir=%s", change, bl, at("t"));
  expect_output("has no run of this testbed, 'fixture x1': nothing was compared");
  ck_assert(file_has(at("t/summary.md"), "not compared (no baseline of this testbed)"));
  ck_assert(!file_has(at("t/summary.md"), "| `elementwise/add/N:1`"));
}
END_TEST

int main(int argc, char **argv) {
  if (test_setup(argc, argv)) return EXIT_FAILURE;
  Suite *s = suite_create("ab");
  TCase *tc = tcase_create("ab");
  tcase_set_timeout(tc, 120); /* as gate_cli_test: a loaded machine, never a limit on the gate */
  tcase_add_test(tc, unchanged_binary_is_not_measured);
  tcase_add_test(tc, same_speed_passes_and_says_what_it_was_compared_with);
  tcase_add_test(tc, a_slowdown_fails_once_confirmed);
  tcase_add_test(tc, a_slowdown_not_confirmed_passes);
  tcase_add_test(tc, a_testbed_without_baseline_runs_is_not_compared);
  suite_add_tcase(s, tc);
  return run_suite(s);
}
