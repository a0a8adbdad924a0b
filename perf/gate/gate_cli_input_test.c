/* CPU tests of the gate binary's commands on bad input and usage: --help and --repetitions, missing, unreadable and
 * not-JSON files told apart, GPU names that name no file, unphysical figures, a --baselines folder or benchmark
 * binary that is not there. Exit codes: 0 pass, 1 confirmed regression (or a failed benchmark), 2 bad input or
 * usage. */
#define _GNU_SOURCE
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "perf/gate/figures.h"
#include "perf/gate/testutil.h"
#include "tests/support/check_run.h"

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

/* The flags of each command, as its --help lists them (--help aside), and those that take no value. */
#define POLICY_FLAGS " tolerance own_tolerance family_tolerance k_noise alpha min_delta_us metric"
static const struct {
  const char *cmd, *flags;
} command_flags[] = {
    {"check",
     "bench baselines strict repetitions contexts long_contexts warmup out_dir no_recheck against_bench against pairs "
     "against_uncovered" POLICY_FLAGS},
    {"compare", "baseline baselines strict recheck out_dir" POLICY_FLAGS},
    {"bless", "baselines add accept-slower only" POLICY_FLAGS},
    {"history", "history_dir verdicts"},
    {"testbeds", "uncovered has_runs label"},
    {"migrate", "per_family"},
    {"failing", ""},
    {"trends", "baseline json tolerance family_tolerance k_noise alpha min_step window since"},
};
static const char no_value[] = " strict no_recheck against_uncovered add accept-slower per_family ";
enum { NCOMMANDS = sizeof command_flags / sizeof *command_flags };

/* 1 when the space-separated list has the word w[0..len). */
static int has_word(const char *list, const char *w, size_t len) {
  for (const char *p = list; (p = strchr(p, *w)) != NULL; p++)
    if ((p == list || p[-1] == ' ') && strncmp(p, w, len) == 0 && (p[len] == ' ' || p[len] == '\0')) return 1;
  return 0;
}

/* Each command takes its own flags and refuses every other command's, naming the flag, the command and those that
 * take it: it used to parse every flag and ignore those it does not use (compare --bench=X, history --tolerance=0.5,
 * trends --strict), which read as if they took effect. Its --help lists exactly its flags. */
START_TEST(a_flag_of_another_command_is_refused) {
  char all[2048] = " ";
  for (int c = 0; c < NCOMMANDS; c++) {
    expect_gate(0, "%s --help", command_flags[c].cmd);
    for (const char *p = gate_output; (p = strstr(p, "--")) != NULL;) { /* every flag its --help names */
      p += 2;
      size_t len = strspn(p, "abcdefghijklmnopqrstuvwxyz_-");
      if (len && strncmp(p, "benchmark", 9) != 0)
        ck_assert_msg(has_word(command_flags[c].flags, p, len), "gate %s --help lists --%.*s, which it does not take",
                      command_flags[c].cmd, (int)len, p);
      p += len;
    }
    char word[64];
    for (const char *p = command_flags[c].flags; sscanf(p, "%63s", word) == 1; p = strstr(p, word) + strlen(word)) {
      char flag[80];
      FORMAT(flag, "--%s", word);
      ck_assert_msg(strstr(gate_output, flag), "gate %s --help does not list %s", command_flags[c].cmd, flag);
      if (!has_word(all, word, strlen(word))) strcat(strcat(all, word), " ");
    }
  }
  char word[64];
  for (const char *p = all; sscanf(p, "%63s", word) == 1; p = strstr(p, word) + strlen(word)) {
    char takers[256] = "";
    for (int c = 0; c < NCOMMANDS; c++)
      if (has_word(command_flags[c].flags, word, strlen(word)))
        strcat(strcat(takers, *takers ? ", " : ""), command_flags[c].cmd);
    for (int c = 0; c < NCOMMANDS; c++) {
      if (has_word(command_flags[c].flags, word, strlen(word))) continue;
      const char *cmd = command_flags[c].cmd;
      expect_gate(2, "%s --%s%s x.json", cmd, word, has_word(no_value, word, strlen(word)) ? "" : "=1");
      char want[512];
      FORMAT(want, "gate %s: --%s is not a flag of %s (it is one of %s)", cmd, word, cmd, takers);
      expect_output(want);
    }
  }
  /* Flags of one command that are ignored without another: refused too. */
  const char *bl = make_dir("flags/bl");
  write_run("flags/run.json", H100, 132, 3000.0, base_set, 3, 1);
  expect_gate(2, "bless --baselines=%s --accept-slower %s", bl, at("flags/run.json"));
  expect_output("bless --accept-slower goes with --add");
  expect_gate(2, "testbeds --label=a --has_runs=b %s", at("flags/run.json"));
  expect_output("testbeds takes one of --uncovered, --has_runs and --label");
  expect_gate(2, "testbeds --uncovered=a --label=b %s %s", at("flags/run.json"), at("flags/run.json"));
  expect_output("testbeds takes one of --uncovered, --has_runs and --label");
}
END_TEST

/* A flag is written in full: getopt_long took a unique prefix (--tol=0.5 as --tolerance), which a flag added later
 * can make another flag's or ambiguous, silently changing what a script's flags mean. */
START_TEST(an_abbreviated_flag_is_refused) {
  const char *cases[][2] = {
      {"compare --tol=0.5 --baselines=bl run.json", "gate compare: --tol: write the flag in full, --tolerance"},
      {"compare --tol 0.5 --baselines=bl run.json", "gate compare: --tol: write the flag in full, --tolerance"},
      {"check --stri --bench=b --baselines=bl", "gate check: --stri: write the flag in full, --strict"},
      {"history --history=h --verdicts=v run.json", "gate history: --history: write the flag in full, --history_dir"},
      {"trends --wind=3 h.csv", "gate trends: --wind: write the flag in full, --window"},
      {"bless --accept --add --baselines=bl run.json", "gate bless: --accept: write the flag in full, --accept-slower"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    expect_gate(2, "%s", cases[i][0]);
    expect_output(cases[i][1]);
  }
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

/* Sets runs[run].<key> of the baseline dir/file to value. */
static void set_baseline_run(const char *file, size_t run, const char *key, json_t *value) {
  json_error_t jerr;
  json_t *doc = json_load_file(at(file), 0, &jerr);
  ck_assert_ptr_nonnull(doc);
  ck_assert_int_eq(json_object_set_new(json_array_get(json_object_get(doc, "runs"), run), key, value), 0);
  ck_assert_int_eq(json_dump_file(doc, at(file), 0), 0);
  json_decref(doc);
}

/* An optional string field of another type is refused, naming it, not read as its default: a testbed of 5 read as
 * "" (no testbed) and the run was compared with the runs of every testbed. */
START_TEST(wrong_typed_optional_strings_are_refused) {
  const char *bl = baseline_dir("types/bl");
  struct {
    const char *key, *field;
    json_t *value;
  } bad[] = {{"testbed", "context.testbed", json_integer(5)},        {"testbed", "context.testbed", json_null()},
             {"testbed", "context.testbed: empty", json_string("")}, {"commit", "context.commit", json_integer(3)},
             {"uuid", "context.gpu.uuid", json_integer(7)},          {"uuid", "context.gpu.uuid", json_null()}};
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    write_run("types/run.json", H100, 132, 3000.0, base_set, 3, 5);
    if (!strcmp(bad[i].key, "uuid")) {
      json_error_t jerr;
      json_t *doc = json_load_file(at("types/run.json"), 0, &jerr);
      ck_assert_ptr_nonnull(doc);
      json_object_set_new(json_object_get(json_object_get(doc, "context"), "gpu"), "uuid", bad[i].value);
      ck_assert_int_eq(json_dump_file(doc, at("types/run.json"), 0), 0);
      json_decref(doc);
    } else {
      set_context("types/run.json", bad[i].key, bad[i].value);
    }
    expect_gate(2, "compare --baselines=%s %s", bl, at("types/run.json"));
    expect_output("types/run.json: field ");
    expect_output(bad[i].field);
    expect_output("Re-run the benchmark");
  }
  /* A baseline's runs alike. */
  const char *runs[][2] = {{"testbed", "runs[0].testbed"}, {"gpu_uuid", "runs[1].gpu_uuid"}};
  write_run("types/run.json", H100, 132, 3000.0, base_set, 3, 5);
  for (size_t i = 0; i < 2; i++) {
    baseline_dir("types/bl");
    set_baseline_run("types/bl/nvidia-h100-80gb-hbm3.json", i, runs[i][0], i ? json_null() : json_integer(5));
    expect_gate(2, "compare --baselines=%s %s", bl, at("types/run.json"));
    expect_output("nvidia-h100-80gb-hbm3.json: field ");
    expect_output(runs[i][1]);
    expect_output("Re-bless it");
  }
  baseline_dir("types/bl");
  expect_gate(0, "compare --baselines=%s %s", bl, at("types/run.json"));
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
  /* gate compare says the same of the folder, and both name an empty --baselines=. */
  expect_gate(2, "compare --baselines=%s %s", at("typo/baselinez"), at("typo/run.json"));
  expect_output("typo/baselinez: no such folder");
  expect_gate(2, "compare --baselines= %s", at("typo/run.json"));
  expect_output("--baselines= is empty");
  expect_gate(2, "check --bench=%s --baselines= --out_dir=%s", bench, at("typo"));
  expect_output("--baselines= is empty");
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

/* A benchmark binary that is not there, or that finds no GPU, is bad input (exit 2), not a failed benchmark (1). */
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
  /* A benchmark that finds no GPU exits 2, as the runner does: bad input, said so, not a failed benchmark. */
  write_text("nobench/fake_bench", "#!/bin/sh\necho 'error: no usable CUDA device' >&2\nexit 2\n");
  ck_assert_int_eq(chmod(at("nobench/fake_bench"), 0755), 0);
  expect_gate(2, "check --bench=%s --baselines=%s --out_dir=%s", at("nobench/fake_bench"), bl, at("nobench"));
  expect_output("exited with status 2: bad flags or no usable GPU");
}
END_TEST

int main(int argc, char **argv) {
  if (test_setup(argc, argv)) return 2;
  Suite *s = suite_create("gate_cli_input");
  TCase *tc = tcase_create("cli_input");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, help_and_repetitions);
  tcase_add_test(tc, a_flag_of_another_command_is_refused);
  tcase_add_test(tc, an_abbreviated_flag_is_refused);
  tcase_add_test(tc, missing_unreadable_and_bad_inputs_differ);
  tcase_add_test(tc, gpu_name_must_name_a_file);
  tcase_add_test(tc, unphysical_figures_are_refused);
  tcase_add_test(tc, wrong_typed_optional_strings_are_refused);
  tcase_add_test(tc, baselines_folder_must_exist);
  tcase_add_test(tc, missing_benchmark_is_bad_input);
  suite_add_tcase(s, tc);
  return run_suite(s);
}
