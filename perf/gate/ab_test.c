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

/* Field `key` of verdict i in the verdicts file `rel` (a copy that outlives the file's JSON). */
static char *verdict_field(const char *rel, size_t i, const char *key) {
  json_error_t jerr;
  json_t *v = json_load_file(at(rel), 0, &jerr);
  ck_assert_msg(v != NULL, "%s", jerr.text);
  const char *text = json_string_value(json_object_get(json_array_get(json_object_get(v, "verdicts"), i), key));
  ck_assert_msg(text != NULL, "%s: verdicts[%zu].%s is not a string", rel, i, key);
  char *copy = strdup(text);
  json_decref(v);
  return copy;
}

/* Which benchmark of base_set ab_run scales (0: add); saxpy's own scale. */
static size_t slow_index;
static double saxpy_scale = 1.0;

/* Run file side/<k>.json: base_set on GPU-ab of testbed "fixture x1", each benchmark in 16 contexts
 * spread +-0.4 %, benchmark slow_index `scale` times its base time. */
static void ab_run(const char *side, unsigned k, unsigned seed, double scale) {
  char file[256];
  FORMAT(file, "%s/%u.json", side, k);
  write_run(file, H100, 132, 3000.0, base_set, 3, seed);
  set_gpu_uuid(file, "GPU-ab");
  set_context(file, "testbed", json_string("fixture x1"));
  for (size_t b = 0; b < 3; b++) {
    double med[16];
    for (int j = 0; j < 16; j++)
      med[j] = base_set[b].time_ns * (b == slow_index ? scale : b == 2 ? saxpy_scale : 1.0) * (1 + 0.002 * (j % 5 - 2));
    set_contexts(file, b, med, 16);
  }
}

/* A stand-in benchmark binary `side`/bench that writes side/1.json, side/2.json, ... in turn, and
 * notes each run in order.log. */
static const char *side_bench(const char *side) {
  char body[2048], rel[256];
  const char *d = make_dir(side);
  FORMAT(body,
         "n=$(cat '%s/count' 2>/dev/null || echo 0); n=$((n + 1)); echo $n > '%s/count'\n"
         "echo \"%s $n\" >> '%s/order.log'; cp '%s/'$n.json \"$out\"\n",
         d, d, side, dir, d);
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
  expect_output("is the same binary on both sides: 3 benchmark(s) unchanged, not measured");
  ck_assert(file_has(at("u/summary.md"), "A/B against rev1: passed"));
  ck_assert(file_has(at("u/summary.md"), "3 A/B against rev1 on this GPU: 0 measured, 3 unchanged"));
  ck_assert_str_eq(order(), ""); /* neither side ran */
  /* A family the base does not have is new in this change: not compared, and not a failure. */
  expect_gate(0, "check --bench=%s --against_bench=%s --against=rev1 --baselines=%s --out_dir=%s", bench, at("u/none"),
              bl, at("u"));
  expect_output("the base revision has no bench: 3 benchmark(s) new");
}
END_TEST

START_TEST(same_speed_passes_and_says_what_it_was_compared_with) {
  write_text("order.log", "");
  const char *bl = make_dir("s/bl");
  prepare("s/base", "s/change", 3, 1.0, 1.0);
  const char *base = side_bench("s/base"), *change = side_bench("s/change");
  expect_gate(0, "check --bench=%s --against_bench=%s --against=rev1 --baselines=%s --out_dir=%s", change, base, bl,
              at("s"));
  expect_output("PASS: A/B against rev1, 3 benchmarks: 3 measured, 0 unchanged, 0 new; 0 slower");
  /* No fingerprint (a runner without CUPTI): everything is measured, and it says so. */
  expect_output("could not be recorded");
  /* ABBA: base, change, change, base. */
  ck_assert_str_eq(order(), "s/base 1\ns/change 1\ns/change 2\ns/base 2\n");
  json_error_t jerr;
  json_t *v = json_load_file(at("s/verdicts.json"), 0, &jerr);
  ck_assert_msg(v != NULL, "%s", jerr.text);
  ck_assert_str_eq(json_string_value(json_object_get(v, "compared_with")), "revision rev1");
  ck_assert_str_eq(json_string_value(json_object_get(v, "testbed")), "fixture x1");
  json_t *e = json_array_get(json_object_get(v, "verdicts"), 0);
  ck_assert_str_eq(json_string_value(json_object_get(e, "verdict")), "same");
  ck_assert_str_eq(json_string_value(json_object_get(e, "compared_with")), "revision rev1");
  ck_assert_str_eq(json_string_value(json_object_get(e, "reference")), "base_revision");
  ck_assert_int_eq(json_integer_value(json_object_get(e, "baseline_runs")), 2);
  ck_assert_int_eq(json_integer_value(json_object_get(e, "policy_version")), GATE_POLICY_VERSION);
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
 * testbed never stands in), the gate check passes and says so on stderr and in summary.md. */
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
  expect_output("has no run of this testbed, 'fixture x1', and no base revision was given: nothing was compared");
  ck_assert(file_has(at("t/summary.md"), "NOT JUDGED (no baseline of this testbed, no base revision)"));
  ck_assert(!file_has(at("t/summary.md"), "| `elementwise/add/N:1`"));
}
END_TEST

/* A fingerprint file (fingerprint.h) for base_set: runner `runner`, benchmark i's one kernel with
 * machine code sass[i] and grid[i] blocks. */
static void write_fp(const char *path, const char *runner, const char *const sass[3], const int grid[3]) {
  char text[4096];
  int len = snprintf(text, sizeof text,
                     "{\"fingerprint_version\": 1, \"runner\": \"%s\", \"gpu\": \"%s\", "
                     "\"benchmarks\": [",
                     runner, H100);
  for (int i = 0; i < 3; i++)
    len += snprintf(text + len, sizeof text - (size_t)len,
                    "%s{\"name\": \"%s\", \"host_round_trip\": false, "
                    "\"complete\": true, \"work\": [\"kernel k%d sass=%s grid=%d,1,1 block=256,1,1 cluster=0,0,0 "
                    "smem=0+0 regs=16 local=0\"]}",
                    i ? ", " : "", base_set[i].name, i, sass[i], grid[i]);
  snprintf(text + len, sizeof text - (size_t)len, "]}\n");
  FILE *f = fopen(path, "w");
  ck_assert_ptr_nonnull(f);
  fputs(text, f);
  ck_assert_int_eq(fclose(f), 0);
}

/* The stand-ins start again from side/1.json. */
static void rewind_sides(const char *a, const char *b) {
  char path[600];
  FORMAT(path, "%s/count", at(a));
  remove(path);
  FORMAT(path, "%s/count", at(b));
  remove(path);
}

static const char *const kSass[3] = {"00000000000000a1", "00000000000000b2", "00000000000000c3"};
static const int kGrid[3] = {128, 256, 512};

/* Only the benchmarks whose timed work differs are measured (alone, ABBA), the others are unchanged;
 * each fingerprint change marks exactly the benchmark that runs it. */
START_TEST(only_what_changed_is_measured) {
  write_text("order.log", "");
  const char *bl = make_dir("w/bl");
  prepare("w/base", "w/change", 3, 1.0, 1.0);
  const char *base = side_bench("w/base"), *change = side_bench("w/change");
  char fb[600], fc[600];
  FORMAT(fb, "%s.fingerprint", base);
  FORMAT(fc, "%s.fingerprint", change);
  write_fp(fb, "runner1", kSass, kGrid);
  const char *sass[3] = {kSass[0], "00000000000000ff", kSass[2]}; /* add_float4's kernel changed */
  write_fp(fc, "runner1", sass, kGrid);
  expect_gate(0, "check --bench=%s --against_bench=%s --against=rev1 --baselines=%s --out_dir=%s", change, base, bl,
              at("w"));
  expect_output("1 benchmark(s) of bench changed, 2 unchanged, 0 new; measuring the changed ones");
  expect_output("elementwise/add_float4/N:1 (changed: kernel k1: its machine code)");
  expect_output("PASS: A/B against rev1, 3 benchmarks: 1 measured, 2 unchanged, 0 new");
  ck_assert_str_eq(order(), "w/base 1\nw/change 1\nw/change 2\nw/base 2\n");
  ck_assert_str_eq(verdict_field("w/verdicts.json", 0, "verdict"), "unchanged");
  ck_assert_str_eq(verdict_field("w/verdicts.json", 1, "verdict"), "same");
  ck_assert_str_eq(verdict_field("w/verdicts.json", 2, "verdict"), "unchanged");
  /* A grid size, an extra memset-like operation, the runner: each marks exactly what it touches. */
  int grid[3] = {kGrid[0], kGrid[1], 1024};
  write_fp(fc, "runner1", kSass, grid);
  rewind_sides("w/base", "w/change");
  expect_gate(0, "check --bench=%s --against_bench=%s --against=rev1 --baselines=%s --out_dir=%s", change, base, bl,
              at("w"));
  expect_output("elementwise/saxpy/N:1 (changed: kernel k2: grid=512,1,1 -> grid=1024,1,1)");
  expect_output("1 measured, 2 unchanged");
  write_fp(fc, "runner2", kSass, kGrid);
  rewind_sides("w/base", "w/change");
  expect_gate(0, "check --bench=%s --against_bench=%s --against=rev1 --baselines=%s --out_dir=%s", change, base, bl,
              at("w"));
  expect_output("(changed: the runner changed (runner1 -> runner2))");
  expect_output("3 measured, 0 unchanged");
  write_fp(fc, "runner1", kSass, kGrid);
  rewind_sides("w/base", "w/change");
  write_text("order.log", "");
  expect_gate(0, "check --bench=%s --against_bench=%s --against=rev1 --baselines=%s --out_dir=%s", change, base, bl,
              at("w"));
  ck_assert_str_eq(order(), ""); /* nothing measured */
  expect_output("0 benchmark(s) of bench changed, 3 unchanged, 0 new: nothing to measure");
}
END_TEST

/* A baseline of testbed "fixture x1": three runs of base_set's first nbench benchmarks on GPU `uuid`, whose copy
 * probe reads copy_gbps (ab_run's GPU reads 3000). */
static const char *bless_runs(const char *rel, size_t nbench, const char *uuid, double copy_gbps) {
  const char *bl = make_dir(rel);
  char files[3][512], args[2048] = "";
  for (unsigned k = 0; k < 3; k++) {
    FORMAT(files[k], "%s/r%u.json", rel, k);
    write_run(files[k], H100, 132, copy_gbps, base_set, nbench, 900 + k);
    set_gpu_uuid(files[k], uuid);
    set_context(files[k], "testbed", json_string("fixture x1"));
    double med[16];
    for (size_t b = 0; b < nbench; b++) {
      for (int j = 0; j < 16; j++) med[j] = base_set[b].time_ns * (1 + 0.002 * (j % 5 - 2));
      set_contexts(files[k], b, med, 16);
    }
    size_t used = strlen(args);
    snprintf(args + used, sizeof args - used, " %s", at(files[k]));
  }
  expect_gate(0, "bless --baselines=%s%s", bl, args);
  return bl;
}

/* Runs of add and add_float4 but not saxpy (a variant added on main since its bless). */
static const char *bless_two_of_three(const char *rel) { return bless_runs(rel, 2, "GPU-ab", 3000.0); }

/* A benchmark the testbed has no run of, but the base revision has, is judged A/B in the same check, not
 * passed as "new"; without a base to A/B against it is NOT JUDGED, loudly. */
START_TEST(a_benchmark_without_testbed_runs_is_judged_ab) {
  write_text("order.log", "");
  const char *bl = bless_two_of_three("x/bl");
  slow_index = 2;
  prepare("x/base", "x/change", 4, 1.10, 1.10); /* saxpy 10 % slower in the change */
  slow_index = 0;
  const char *base = side_bench("x/base"), *change = side_bench("x/change");
  char fb[600], fc[600];
  FORMAT(fb, "%s.fingerprint", base);
  FORMAT(fc, "%s.fingerprint", change);
  write_fp(fb, "runner1", kSass, kGrid);
  const char *sass[3] = {kSass[0], kSass[1], "00000000000000ff"};
  write_fp(fc, "runner1", sass, kGrid);
  expect_gate(1,
              "check --bench=%s --against_bench=%s --against=rev1 --against_uncovered --min_delta_us=0.01 "
              "--baselines=%s --out_dir=%s",
              change, base, bl, at("x"));
  expect_output("1 benchmark(s) have no run of this testbed in the baseline: judging them A/B against rev1");
  expect_output("REGRESSION elementwise/saxpy/N:1: slower by +10.0%");
  /* The change's first run (the family, against the baseline), then saxpy alone ABBA and its confirmation. */
  ck_assert_str_eq(order(), "x/change 1\nx/base 1\nx/change 2\nx/change 3\nx/base 2\nx/change 4\nx/base 3\n");
  ck_assert(file_has(at("x/summary.md"), "Judged: 2 against the baseline"));
  ck_assert(file_has(at("x/summary.md"), "1 A/B against rev1 on this GPU: 1 measured (`elementwise/saxpy/N:1`)"));
  ck_assert_str_eq(verdict_field("x/verdicts.json", 0, "compared_with"), "baseline");
  ck_assert_str_eq(verdict_field("x/verdicts.json", 2, "compared_with"), "revision rev1");
  ck_assert_str_eq(verdict_field("x/verdicts.json", 2, "verdict"), "slower");
  /* A GPU model with no baseline at all: everything A/B, only saxpy measured. */
  rewind_sides("x/base", "x/change");
  const char *none = make_dir("x/none");
  expect_gate(1,
              "check --bench=%s --against_bench=%s --against=rev1 --against_uncovered --min_delta_us=0.01 "
              "--baselines=%s --out_dir=%s",
              change, base, none, at("x"));
  expect_output("3 benchmark(s) have no run of this testbed in the baseline: judging them A/B against rev1");
  expect_output("REGRESSION elementwise/saxpy/N:1: slower by +10.0%");
  ck_assert(file_has(at("x/summary.md"), "2 unchanged (the same timed work, not measured)"));
  /* No base revision: saxpy cannot be judged, and the gate check says so. */
  rewind_sides("x/base", "x/change");
  expect_gate(0, "check --bench=%s --min_delta_us=0.01 --baselines=%s --out_dir=%s", change, bl, at("x"));
  expect_output("NOT JUDGED: 1 benchmark(s) of bench have no run of this testbed");
}
END_TEST

/* OTHER_KINDS (check.c): a slower reading against other GPU kinds alone (the baseline has no run of this GPU or
 * its GPU kind) is settled A/B when there is a base, measured even with the same timed work: the kinds' difference,
 * on both sides alike, passes; a change slower on this GPU too fails; without a base the reading stands. */
START_TEST(a_slower_reading_against_other_kinds_is_settled_ab) {
  write_text("order.log", "");
  const char *bl = bless_runs("k/bl", 3, "GPU-other", 3100.0); /* another GPU kind: its copy 3.3 % faster */
  make_dir("k/base");
  make_dir("k/change");
  saxpy_scale = 0.95;
  for (unsigned k = 1; k <= 4;
       k++) { /* on the GPU kind of this GPU add runs 5 % slower and saxpy 5 % faster, both sides */
    ab_run("k/base", k, 100 * k + 1, 1.05);
    ab_run("k/change", k, 100 * k + 2, 1.05);
  }
  const char *base = side_bench("k/base"), *change = side_bench("k/change");
  char fb[600], fc[600];
  FORMAT(fb, "%s.fingerprint", base);
  FORMAT(fc, "%s.fingerprint", change);
  write_fp(fb, "runner1", kSass, kGrid);
  write_fp(fc, "runner1", kSass, kGrid); /* the same timed work */
  const char *args = "--against_uncovered --min_delta_us=0.01";
  expect_gate(0, "check --bench=%s --against_bench=%s --against=rev1 %s --baselines=%s --out_dir=%s", change, base,
              args, bl, at("k"));
  expect_output("2 benchmark(s) read slower (1) or faster against other kinds of GPU alone");
  expect_output("elementwise/add/N:1 (measured: a suspect, though its timed work is the same)");
  /* Not re-measured against the baseline: the change's run, then add alone ABBA; saxpy, faster with the same
   * timed work, is not measured. */
  ck_assert_str_eq(order(), "k/change 1\nk/base 1\nk/change 2\nk/change 3\nk/base 2\n");
  ck_assert_str_eq(verdict_field("k/verdicts.json", 0, "verdict"), "same");
  ck_assert_str_eq(verdict_field("k/verdicts.json", 0, "compared_with"), "revision rev1");
  ck_assert_str_eq(verdict_field("k/verdicts.json", 1, "compared_with"), "baseline");
  ck_assert_str_eq(verdict_field("k/verdicts.json", 2, "verdict"), "unchanged");
  ck_assert(file_has(at("k/summary.md"),
                     "2 of them because only the baseline.s other kinds of GPU read them slower or "
                     "faster (`elementwise/add/N:1`, `elementwise/saxpy/N:1`)")); /* ' in a regex */
  ck_assert(file_has(at("k/verdicts.json"), "other_kinds_differ"));
  /* The change 5 % slower than the base on this GPU: A/B fails it. */
  for (unsigned k = 2; k <= 4; k++) ab_run("k/change", k, 100 * k + 2, 1.05 * 1.05);
  rewind_sides("k/base", "k/change");
  expect_gate(1, "check --bench=%s --against_bench=%s --against=rev1 %s --baselines=%s --out_dir=%s", change, base,
              args, bl, at("k"));
  expect_output("REGRESSION elementwise/add/N:1: slower by +5.0%");
  ck_assert_str_eq(verdict_field("k/verdicts.json", 0, "compared_with"), "revision rev1");
  /* No base: the baseline's reading stands, confirmed against the same runs. */
  rewind_sides("k/base", "k/change");
  expect_gate(1, "check --bench=%s --min_delta_us=0.01 --baselines=%s --out_dir=%s", change, bl, at("k"));
  expect_output("Judged against other kinds of this GPU model");
  ck_assert_str_eq(verdict_field("k/verdicts.json", 0, "compared_with"), "baseline");
  ck_assert_str_eq(verdict_field("k/verdicts.json", 2, "verdict"), "faster");
  saxpy_scale = 1.0;
}
END_TEST

int main(int argc, char **argv) {
  if (test_setup(argc, argv)) return EXIT_FAILURE;
  Suite *s = suite_create("ab");
  TCase *tc = tcase_create("ab");
  tcase_set_timeout(tc, 120); /* as in gate_cli_*_test: a loaded machine, never a limit on the gate */
  tcase_add_test(tc, unchanged_binary_is_not_measured);
  tcase_add_test(tc, same_speed_passes_and_says_what_it_was_compared_with);
  tcase_add_test(tc, a_slowdown_fails_once_confirmed);
  tcase_add_test(tc, a_slowdown_not_confirmed_passes);
  tcase_add_test(tc, a_testbed_without_baseline_runs_is_not_compared);
  tcase_add_test(tc, only_what_changed_is_measured);
  tcase_add_test(tc, a_benchmark_without_testbed_runs_is_judged_ab);
  tcase_add_test(tc, a_slower_reading_against_other_kinds_is_settled_ab);
  suite_add_tcase(s, tc);
  return run_suite(s);
}
