/* CPU tests of the regression gate's figures: run files and baselines read, saved and merged; bad input named; runs
 * of another GPU, L2 flush or warm-up never mixed; families sharing one baseline; the report's reader; real H100
 * runner output; GPU slugs. */
#define _GNU_SOURCE
#include <check.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "perf/gate/compare.h"
#include "perf/gate/figures.h"
#include "perf/gate/testutil.h"
#include "tests/support/check_run.h"

START_TEST(run_file_is_read) {
  write_run("one.json", H100, 132, 3000.0, base_set, 3, 1);
  gate_figures f;
  char err[1024];
  ck_assert_msg(load_run(at("one.json"), &f, err, sizeof err) == 0, "%s", err);
  ck_assert_uint_eq(f.n, 3);
  ck_assert_str_eq(f.gpu.slug, "nvidia-h100-80gb-hbm3");
  ck_assert_int_eq(f.gpu.sm_count, 132);
  ck_assert_double_eq_tol(f.runs[0].copy_bytes_per_second, 3000e9, 1);
  ck_assert_uint_eq(f.b[1].runs[0].nsamples, 25);
  ck_assert_double_eq_tol(f.b[1].runs[0].time_ns, 2000, 2000 * 0.011);
  free_figures(&f);
}
END_TEST

START_TEST(baseline_round_trips_atomically) {
  gate_figures base, again;
  char err[1024];
  make_baseline(&base);
  ck_assert_msg(save_baseline(at("nvidia-h100-80gb-hbm3.json"), &base, err, sizeof err) == 0, "%s", err);
  ck_assert_msg(load_baseline(at("nvidia-h100-80gb-hbm3.json"), &again, err, sizeof err) == 0, "%s", err);
  ck_assert_uint_eq(again.n, 3);
  ck_assert_uint_eq(again.nruns, 3);
  ck_assert_uint_eq(again.b[2].nruns, 3);
  ck_assert_double_eq_tol(again.b[2].runs[1].time_ns, base.b[2].runs[1].time_ns, 1e-3);
  ck_assert_str_eq(again.runs[2].host, "gpu-host-1");
  /* No temporary file is left behind. */
  char cmd[1200];
  FORMAT(cmd, "ls %s | grep -q tmp", dir);
  ck_assert_int_ne(system(cmd), 0);
  free_figures(&base);
  free_figures(&again);
}
END_TEST

START_TEST(bad_input_is_named) {
  gate_figures f;
  char err[1024];
  write_text("truncated.json", "{\"context\": {\"json_schema_version\": 1, \"gpu\": {");
  expect_error(load_run(at("truncated.json"), &f, err, sizeof err), err, "not valid JSON");
  write_text("schema.json", "{\"schema_version\": 7, \"gpu\": {}}");
  expect_error(load_baseline(at("schema.json"), &f, err, sizeof err), err, "schema_version");
  write_run("empty.json", H100, 132, 3000.0, base_set, 0, 1);
  expect_error(load_run(at("empty.json"), &f, err, sizeof err), err, "measured nothing");
  fake_bench neg[1] = {{"elementwise/add/N:1", -5}};
  write_run("negative.json", H100, 132, 3000.0, neg, 1, 1);
  expect_error(load_run(at("negative.json"), &f, err, sizeof err), err, "real_time");
  write_text("nan.json",
             "{\"context\": {\"json_schema_version\": 1, \"gpu\": {\"name\": \"X\", \"sm_count\": 1, "
             "\"mem_clock_max_mhz\": NaN}}}");
  expect_error(load_run(at("nan.json"), &f, err, sizeof err), err, "not valid JSON");
  /* A baseline whose GPU differs from its file name. */
  gate_figures base;
  make_baseline(&base);
  ck_assert(save_baseline(at("nvidia-h200.json"), &base, err, sizeof err) == 0);
  expect_error(load_baseline(at("nvidia-h200.json"), &f, err, sizeof err), err, "nvidia-h100-80gb-hbm3.json");
  free_figures(&base);
  /* A failed benchmark in the run. */
  write_text(
      "failed.json",
      "{\"context\": {\"json_schema_version\": 1, \"date\": \"d\", \"host_name\": \"h\", \"copy_bandwidth_GBps\": 1,"
      " \"gpu\": {\"name\": \"G\", \"sm_count\": 1, \"mem_clock_max_mhz\": 1, \"bus_width_bits\": 1, \"ecc\": true,"
      " \"driver_version\": \"\", \"runtime_version\": \"\"}}, \"benchmarks\": [{\"name\": \"a/b\", \"run_type\":"
      " \"iteration\", \"error_occurred\": true, \"error_message\": \"self-check failed\"}]}");
  expect_error(load_run(at("failed.json"), &f, err, sizeof err), err, "self-check failed");
  /* Messages that name the cause (#56): a newer baseline, a baseline given as a run, a time no timer makes, a
   * number beyond 64-bit integers. */
  write_text("v9.json", "{\"schema_version\": 9, \"gpu\": {}}");
  expect_error(load_baseline(at("v9.json"), &f, err, sizeof err), err, "a newer gate wrote it; run that gate");
  gate_figures b3;
  make_baseline(&b3);
  ck_assert(save_baseline(at("nvidia-h100-80gb-hbm3.json"), &b3, err, sizeof err) == 0);
  free_figures(&b3);
  expect_error(load_run(at("nvidia-h100-80gb-hbm3.json"), &f, err, sizeof err), err, "a baseline, not a run file");
  write_run("huge_median.json", H100, 132, 3000.0, base_set, 3, 1);
  double medians[16];
  for (int i = 0; i < 16; i++) medians[i] = 1000;
  set_contexts("huge_median.json", 0, medians, 16);
  json_error_t jerr0;
  json_t *run = json_load_file(at("huge_median.json"), 0, &jerr0);
  ck_assert_ptr_nonnull(run);
  json_array_set_new(json_object_get(json_array_get(json_object_get(run, "benchmarks"), 0), "context_medians"), 0,
                     json_real(1e308)); /* one context of 16: once set aside as an interruption, "same" */
  ck_assert_int_eq(json_dump_file(run, at("huge_median.json"), 0), 0);
  json_decref(run);
  expect_error(load_run(at("huge_median.json"), &f, err, sizeof err), err,
               "context_medians[0]: 1e+308 ns is not a physical time");
  write_text("huge_int.json",
             "{\"context\": {\"json_schema_version\": 1}, \"benchmarks\": [{\"iterations\": "
             "18446744073709551616}]}");
  expect_error(load_run(at("huge_int.json"), &f, err, sizeof err), err, "a number beyond a 64-bit integer");
  /* One repetition's entry twice (#56 W04) is refused; two repetitions of a benchmark are pooled. */
  write_run("twice.json", H100, 132, 3000.0, base_set, 3, 1);
  json_error_t jerr;
  json_t *doc = json_load_file(at("twice.json"), 0, &jerr);
  ck_assert_ptr_nonnull(doc);
  json_t *list = json_object_get(doc, "benchmarks");
  json_array_append_new(list, json_deep_copy(json_array_get(list, 0)));
  ck_assert_int_eq(json_dump_file(doc, at("twice.json"), 0), 0);
  expect_error(load_run(at("twice.json"), &f, err, sizeof err), err,
               "a second entry of 'elementwise/add/N:1' for the same repetition");
  json_object_set_new(json_array_get(list, 0), "repetition_index", json_integer(0));
  json_object_set_new(json_array_get(list, 3), "repetition_index", json_integer(1));
  ck_assert_int_eq(json_dump_file(doc, at("twice.json"), 0), 0);
  json_decref(doc);
  ck_assert_msg(load_run(at("twice.json"), &f, err, sizeof err) == 0, "%s", err);
  ck_assert_uint_eq(f.n, 3);
  free_figures(&f);
}
END_TEST

/* error_occurred is a boolean and repetition_index an integer >= 0, a missing one 0 (Google Benchmark leaves it out of
 * one repetition): "true" as a string let a failed entry be judged, and "0" or a missing index beside 0 pooled one
 * repetition twice. */
START_TEST(failures_and_repetitions_are_typed) {
  gate_figures f;
  char err[1024];
  json_t *flags[] = {json_string("true"), json_integer(1), json_null()};
  for (size_t i = 0; i < 3; i++) {
    write_run("typed.json", H100, 132, 3000.0, base_set, 3, 1);
    set_bench("typed.json", 1, "error_occurred", flags[i]);
    expect_error(load_run(at("typed.json"), &f, err, sizeof err), err,
                 "typed.json: field benchmarks[1].error_occurred: expected true or false");
  }
  write_run("typed.json", H100, 132, 3000.0, base_set, 3, 1);
  set_bench("typed.json", 1, "error_occurred", json_false());
  f = load_ok("typed.json");
  free_figures(&f);
  json_t *indices[] = {json_string("0"), json_integer(-1), json_real(1.0), json_null()};
  for (size_t i = 0; i < 4; i++) {
    write_run("typed.json", H100, 132, 3000.0, base_set, 3, 1);
    set_bench("typed.json", 2, "repetition_index", indices[i]);
    expect_error(load_run(at("typed.json"), &f, err, sizeof err), err,
                 "typed.json: field benchmarks[2].repetition_index: expected an integer >= 0");
  }
  /* One entry without an index and a copy of it with index 0: one repetition twice, either way round. */
  for (int order = 0; order < 2; order++) {
    write_run("typed.json", H100, 132, 3000.0, base_set, 3, 1);
    json_error_t jerr;
    json_t *doc = json_load_file(at("typed.json"), 0, &jerr);
    ck_assert_ptr_nonnull(doc);
    json_t *list = json_object_get(doc, "benchmarks"), *copy = json_deep_copy(json_array_get(list, 0));
    json_object_set_new(order ? copy : json_array_get(list, 0), "repetition_index", json_integer(0));
    json_array_append_new(list, copy);
    ck_assert_int_eq(json_dump_file(doc, at("typed.json"), 0), 0);
    json_decref(doc);
    expect_error(load_run(at("typed.json"), &f, err, sizeof err), err,
                 "a second entry of 'elementwise/add/N:1' for the same repetition (repetition_index 0");
  }
}
END_TEST

/* Sets <object>.<key> of the JSON file dir/file ("" : the top level; "context.gpu", "runs[0]"...). */
static void set_at(const char *file, const char *object, const char *key, json_t *value) {
  json_error_t jerr;
  json_t *doc = json_load_file(at(file), 0, &jerr), *o = doc;
  ck_assert_ptr_nonnull(doc);
  char path[128];
  FORMAT(path, "%s", object);
  for (char *cursor = path, *step; (step = strsep(&cursor, ".")) && *step;) {
    size_t i = 0;
    char *bracket = strchr(step, '[');
    if (bracket) *bracket = '\0', i = strtoul(bracket + 1, NULL, 10);
    o = json_object_get(o, step);
    if (bracket) o = json_array_get(o, i);
  }
  ck_assert_msg(json_object_set_new(o, key, value) == 0, "%s: no object %s", file, object);
  ck_assert_int_eq(json_dump_file(doc, at(file), 0), 0);
  json_decref(doc);
}

/* Integers are range-checked before they are cast to int: an sm_count of 2^32 + 132 read as 132, and 2^32 + 16
 * contexts as 16. Present ones of another type are refused, not read as their default. */
START_TEST(integers_are_range_checked) {
  gate_figures f, base;
  char err[1024];
  const json_int_t wrap = (json_int_t)1 << 32;
  struct {
    const char *object, *key, *message;
    json_t *value;
  } bad[] = {
      {"context.gpu", "sm_count", "context.gpu.sm_count: expected an integer from 1 to 65536, got 4294967428",
       json_integer(wrap + 132)},
      {"context.gpu", "sm_count", "context.gpu.sm_count: expected an integer from 1 to 65536, got 0", json_integer(0)},
      {"context.gpu", "bus_width_bits", "context.gpu.bus_width_bits: expected an integer from 1 to 65536, got -1",
       json_integer(-1)},
      {"context.timing", "contexts", "context.timing.contexts: expected an integer from 1 to 256, got 4294967312",
       json_integer(wrap + 16)},
      {"context.timing", "contexts", "context.timing.contexts: expected an integer from 1 to 256, got a string",
       json_string("16")},
      {"context.timing", "long_contexts",
       "context.timing.long_contexts: expected an integer from 0 to 16, got 4294967300", json_integer(wrap + 4)},
      {"context.timing", "contexts_below_s", "context.timing.contexts_below_s: expected a number >= 0",
       json_string("5e-5")},
  };
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    write_run("ints.json", H100, 132, 3000.0, base_set, 3, 1);
    /* long_contexts 1: its benchmarks, with no context_medians, read as long ones measured in one context. */
    set_context("ints.json", "timing",
                json_pack("{s:i, s:f, s:i}", "contexts", 16, "contexts_below_s", 50e-6, "long_contexts", 1));
    f = load_ok("ints.json");
    free_figures(&f);
    set_at("ints.json", bad[i].object, bad[i].key, bad[i].value);
    expect_error(load_run(at("ints.json"), &f, err, sizeof err), err, bad[i].message);
  }
  /* A baseline's alike. */
  make_baseline(&base);
  ck_assert(save_baseline(at("nvidia-h100-80gb-hbm3.json"), &base, err, sizeof err) == 0);
  free_figures(&base);
  set_at("nvidia-h100-80gb-hbm3.json", "gpu", "sm_count", json_integer(wrap + 132));
  expect_error(load_baseline(at("nvidia-h100-80gb-hbm3.json"), &f, err, sizeof err), err,
               "gpu.sm_count: expected an integer from 1 to 65536, got 4294967428");
  set_at("nvidia-h100-80gb-hbm3.json", "gpu", "sm_count", json_integer(132));
  set_at("nvidia-h100-80gb-hbm3.json", "runs[1]", "contexts", json_integer(wrap + 1));
  expect_error(load_baseline(at("nvidia-h100-80gb-hbm3.json"), &f, err, sizeof err), err,
               "runs[1].contexts: expected an integer from 1 to 256, got 4294967297");
}
END_TEST

/* make_baseline saved as dir/nvidia-h100-80gb-hbm3.json, as a JSON document to edit. */
static json_t *saved_baseline(void) {
  gate_figures base;
  char err[1024];
  make_baseline(&base);
  ck_assert_msg(save_baseline(at("nvidia-h100-80gb-hbm3.json"), &base, err, sizeof err) == 0, "%s", err);
  free_figures(&base);
  json_error_t jerr;
  json_t *doc = json_load_file(at("nvidia-h100-80gb-hbm3.json"), 0, &jerr);
  ck_assert_ptr_nonnull(doc);
  return doc;
}

/* doc written as the baseline and loaded: refused naming the file and `needle` (and the fix), or, needle NULL,
 * read. Takes doc. */
static void expect_baseline(json_t *doc, const char *needle) {
  gate_figures f;
  char err[1024];
  ck_assert_int_eq(json_dump_file(doc, at("nvidia-h100-80gb-hbm3.json"), 0), 0);
  json_decref(doc);
  int rc = load_baseline(at("nvidia-h100-80gb-hbm3.json"), &f, err, sizeof err);
  if (!needle) {
    ck_assert_msg(rc == 0, "%s", err);
    free_figures(&f);
    return;
  }
  expect_error(rc, err, needle);
  ck_assert_msg(strstr(err, at("nvidia-h100-80gb-hbm3.json")) && strstr(err, "Re-bless it (ci/bless.sh)"), "%s", err);
}

static json_t *measure_of(json_t *doc, size_t bench, size_t m) {
  return json_array_get(json_object_get(json_array_get(json_object_get(doc, "benchmarks"), bench), "runs"), m);
}

/* A baseline counts each run once, with as many context medians as it was measured in, dated as the runner dates:
 * each of these was read without a word, and weighed one run twice, or a measure as several contexts. */
START_TEST(baseline_runs_are_counted_once_and_dated) {
  expect_baseline(saved_baseline(), NULL);
  /* Two measures of one benchmark from one run. */
  json_t *doc = saved_baseline();
  json_object_set_new(measure_of(doc, 0, 1), "run", json_integer(0));
  expect_baseline(doc, "field benchmarks[0].runs[1].run: 0 again (benchmarks[0].runs[0] is a measure of runs[0] too)");
  /* One run's entry twice (same date, host and GPU). */
  doc = saved_baseline();
  json_t *runs = json_object_get(doc, "runs");
  json_array_set_new(runs, 2, json_deep_copy(json_array_get(runs, 0)));
  expect_baseline(doc, "field runs[2]: the same run as runs[0]");
  /* A date that is not one. */
  const char *dates[] = {"junk", "2026-10-32T02:00:00+00:00", "2026-11-22 00:00:10+00:00", ""};
  for (size_t i = 0; i < sizeof dates / sizeof *dates; i++) {
    doc = saved_baseline();
    json_object_set_new(json_array_get(json_object_get(doc, "runs"), 1), "date", json_string(dates[i]));
    expect_baseline(doc, "field runs[1].date: '");
  }
  /* Context medians: three in a run measured in one context; one in a run of 16 contexts whose long benchmarks had
   * 4; but one where its long ones had one context, and two repetitions' 32. */
  doc = saved_baseline();
  json_object_set_new(measure_of(doc, 1, 2), "contexts_ns", json_pack("[f, f, f]", 1990.0, 2000.0, 2010.0));
  json_object_set_new(measure_of(doc, 1, 2), "median_ns", json_real(2000.0));
  expect_baseline(doc, "field benchmarks[1].runs[2].contexts_ns: 3 medians, expected 1: runs[2] was measured in one");
  doc = saved_baseline();
  json_t *run0 = json_array_get(json_object_get(doc, "runs"), 0);
  json_object_set_new(run0, "contexts", json_integer(16));
  json_object_set_new(run0, "long_contexts", json_integer(4));
  expect_baseline(json_deep_copy(doc), "field benchmarks[0].runs[0].contexts_ns: 1 median, expected 16 or 4 per");
  json_object_set_new(run0, "long_contexts", json_integer(0));
  expect_baseline(json_deep_copy(doc), NULL);
  json_t *ms = json_array();
  for (int k = 0; k < 32; k++) json_array_append_new(ms, json_real(1000.0));
  json_object_set_new(measure_of(doc, 0, 0), "contexts_ns", ms);
  json_object_set_new(measure_of(doc, 0, 0), "median_ns", json_real(1000.0));
  expect_baseline(json_deep_copy(doc), NULL);
  json_array_remove(ms, 0);
  expect_baseline(doc, "contexts_ns: 31 medians, expected 16 per repetition (runs[0].contexts), or 1 for a long");
  /* Version 2 kept each measure's samples: none is an edited file (migrated, it would read samples_taken 0). */
  doc = saved_baseline();
  json_object_set_new(doc, "schema_version", json_integer(2));
  json_object_set_new(measure_of(doc, 2, 0), "samples_ns", json_array());
  json_object_del(measure_of(doc, 2, 0), "samples_taken");
  expect_baseline(doc, "field benchmarks[2].runs[0].samples_ns: empty");
  /* Every command that reads it: exit 2. */
  doc = saved_baseline();
  json_object_set_new(json_array_get(json_object_get(doc, "runs"), 1), "date", json_string("junk"));
  ck_assert_int_eq(json_dump_file(doc, at("nvidia-h100-80gb-hbm3.json"), 0), 0);
  json_decref(doc);
  expect_gate(2, "testbeds %s", at("nvidia-h100-80gb-hbm3.json"));
  expect_output("field runs[1].date: 'junk' is not a date");
}
END_TEST

/* A string longer than the gate keeps is refused, not cut short (a cut commit or host names another). */
START_TEST(long_strings_are_refused) {
  gate_figures f;
  char err[1024], long_host[301];
  memset(long_host, 'h', 300);
  long_host[300] = '\0';
  write_run("long_host.json", H100, 132, 3000.0, base_set, 3, 1);
  set_context("long_host.json", "host_name", json_string(long_host));
  expect_error(load_run(at("long_host.json"), &f, err, sizeof err), err, "context.host_name: 300 characters");
  write_run("long_commit.json", H100, 132, 3000.0, base_set, 3, 1);
  set_context("long_commit.json", "commit",
              json_string("0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"));
  expect_error(load_run(at("long_commit.json"), &f, err, sizeof err), err, "context.commit: 64 characters");
}
END_TEST

START_TEST(wrong_gpu_is_refused) {
  gate_figures a, b;
  char err[1024];
  write_run("h100.json", H100, 132, 3000.0, base_set, 3, 1);
  write_run("h100_114.json", H100, 114, 3000.0, base_set, 3, 1);
  write_run("h200.json", "NVIDIA H200", 132, 4300.0, base_set, 3, 1);
  ck_assert(load_run(at("h100.json"), &a, err, sizeof err) == 0);
  ck_assert(load_run(at("h100_114.json"), &b, err, sizeof err) == 0);
  expect_error(same_hardware(&a.gpu, &b.gpu, err, sizeof err), err, "sm_count");
  free_figures(&b);
  ck_assert(load_run(at("h200.json"), &b, err, sizeof err) == 0);
  expect_error(same_hardware(&a.gpu, &b.gpu, err, sizeof err), err, "GPU model differs");
  gate_figures both[2] = {a, b}, merged;
  expect_error(merge_runs(both, 2, &merged, err, sizeof err), err, "not from the same hardware");
  free_figures(&a);
  free_figures(&b);
}
END_TEST

/* Figures taken with different L2 flushes never compare or merge. */
START_TEST(flush_methods_do_not_mix) {
  gate_figures base, legacy, fresh, hot;
  char err[1024];
  make_baseline(&base); /* files without l2_flush_method: the memset flush */
  ck_assert_str_eq(base.runs[0].l2_flush, "write");
  write_run("read.json", H100, 132, 3000.0, base_set, 3, 7);
  set_context("read.json", "l2_flush_method", json_string("read"));
  ck_assert_msg(load_run(at("read.json"), &fresh, err, sizeof err) == 0, "%s", err);
  ck_assert_str_eq(fresh.runs[0].l2_flush, "read");
  expect_error(same_method(&base, &fresh, err, sizeof err), err, "l2_flush");
  ck_assert_ptr_nonnull(strstr(err, "'write'"));

  write_run("legacy.json", H100, 132, 3000.0, base_set, 3, 8);
  ck_assert_msg(load_run(at("legacy.json"), &legacy, err, sizeof err) == 0, "%s", err);
  ck_assert_int_eq(same_method(&base, &legacy, err, sizeof err), 0);
  gate_figures both[2] = {legacy, fresh}, merged;
  expect_error(merge_runs(both, 2, &merged, err, sizeof err), err, "L2 flush");

  write_run("hot.json", H100, 132, 3000.0, base_set, 3, 9);
  set_context("hot.json", "l2_flush", json_false());
  ck_assert_msg(load_run(at("hot.json"), &hot, err, sizeof err) == 0, "%s", err);
  ck_assert_str_eq(hot.runs[0].l2_flush, "hot");

  write_run("odd.json", H100, 132, 3000.0, base_set, 3, 9);
  set_context("odd.json", "l2_flush_method", json_string("sideways"));
  gate_figures odd;
  expect_error(load_run(at("odd.json"), &odd, err, sizeof err), err, "context.l2_flush_method");

  /* A baseline keeps the method of each run. */
  gate_figures read_base, again;
  gate_figures one[1] = {fresh};
  ck_assert_msg(merge_runs(one, 1, &read_base, err, sizeof err) == 0, "%s", err);
  ck_assert_msg(save_baseline(at("nvidia-h100-80gb-hbm3.json"), &read_base, err, sizeof err) == 0, "%s", err);
  ck_assert_msg(load_baseline(at("nvidia-h100-80gb-hbm3.json"), &again, err, sizeof err) == 0, "%s", err);
  ck_assert_str_eq(again.runs[0].l2_flush, "read");
  ck_assert_str_eq(again.runs[0].gpu_uuid, "GPU-fixture-0007"); /* which GPU of the model measured it */
  ck_assert_int_eq(same_method(&again, &fresh, err, sizeof err), 0);
  free_figures(&base);
  free_figures(&legacy);
  free_figures(&fresh);
  free_figures(&hot);
  free_figures(&read_base);
  free_figures(&again);
}
END_TEST

/* A run's warm-up (--benchmark_min_warmup_time, context.timing.min_warmup_time_s): compute-bound
 * kernels measure up to ~2 % apart with and without one, so runs of different warm-ups never
 * compare or merge. A baseline keeps it per run, and writes it only when there was one. */
static void set_warmup(const char *file, json_t *seconds) {
  set_context(file, "timing", json_pack("{s:o}", "min_warmup_time_s", seconds));
}

START_TEST(warm_ups_do_not_mix) {
  gate_figures cold_base, cold, warm, warm2, warm_base, again;
  char err[1024];
  make_baseline(&cold_base); /* runs without the field: no warm-up beyond the one run */
  ck_assert_double_eq(cold_base.runs[0].warmup_s, 0);
  write_run("cold.json", H100, 132, 3000.0, base_set, 3, 31);
  ck_assert_msg(load_run(at("cold.json"), &cold, err, sizeof err) == 0, "%s", err);
  ck_assert_double_eq(cold.runs[0].warmup_s, 0);
  write_run("warm.json", H100, 132, 3000.0, base_set, 3, 32);
  set_warmup("warm.json", json_real(0.2));
  ck_assert_msg(load_run(at("warm.json"), &warm, err, sizeof err) == 0, "%s", err);
  ck_assert_double_eq_tol(warm.runs[0].warmup_s, 0.2, 1e-12);
  gate_figures real; /* the runner writes 0 when not given the flag */
  ck_assert_msg(load_run("perf/runner/testdata/h100_elementwise.json", &real, err, sizeof err) == 0, "%s", err);
  ck_assert_double_eq(real.runs[0].warmup_s, 0);
  free_figures(&real);
  write_run("warm2.json", H100, 132, 3000.0, base_set, 3, 33);
  set_warmup("warm2.json", json_real(0.2));
  ck_assert_msg(load_run(at("warm2.json"), &warm2, err, sizeof err) == 0, "%s", err);

  /* Compared: a warm run against cold baseline runs is refused, naming the field and the fix. */
  ck_assert_int_eq(same_method(&cold_base, &cold, err, sizeof err), 0);
  expect_error(same_method(&cold_base, &warm, err, sizeof err), err, "field runs[0].warmup_s differs");
  ck_assert_ptr_nonnull(strstr(err, "0 s of warm-up per benchmark and context in the baseline, 0.2 s in this run"));
  ck_assert_ptr_nonnull(strstr(err, "--warmup=0"));

  /* Blessed: runs of one bless share their warm-up. */
  gate_figures mixed[2] = {cold, warm}, merged;
  expect_error(merge_runs(mixed, 2, &merged, err, sizeof err), err, "warm-up");
  ck_assert_ptr_nonnull(strstr(err, "run 2 was measured with 0.2 s"));

  /* A warm baseline keeps 0.2 through save and load, and compares with warm runs only. */
  gate_figures both[2] = {warm, warm2};
  ck_assert_msg(merge_runs(both, 2, &warm_base, err, sizeof err) == 0, "%s", err);
  ck_assert_msg(save_baseline(at("nvidia-h100-80gb-hbm3.json"), &warm_base, err, sizeof err) == 0, "%s", err);
  ck_assert(file_has(at("nvidia-h100-80gb-hbm3.json"), "\"long_contexts\":0,\"warmup_s\":0.2,"));
  ck_assert_msg(load_baseline(at("nvidia-h100-80gb-hbm3.json"), &again, err, sizeof err) == 0, "%s", err);
  ck_assert_double_eq_tol(again.runs[0].warmup_s, 0.2, 1e-12);
  ck_assert_double_eq_tol(again.runs[1].warmup_s, 0.2, 1e-12);
  ck_assert_int_eq(same_method(&again, &warm, err, sizeof err), 0);
  expect_error(same_method(&again, &cold, err, sizeof err), err, "warmup_s differs");
  ck_assert_ptr_nonnull(strstr(err, "0.2 s of warm-up per benchmark and context in the baseline, 0 s in this run"));
  free_figures(&again);

  /* A cold baseline has no warmup_s at all: the committed baselines save as they were. */
  ck_assert_msg(save_baseline(at("nvidia-h100-80gb-hbm3.json"), &cold_base, err, sizeof err) == 0, "%s", err);
  ck_assert(!file_has(at("nvidia-h100-80gb-hbm3.json"), "warmup_s"));
  ck_assert_msg(load_baseline(at("nvidia-h100-80gb-hbm3.json"), &again, err, sizeof err) == 0, "%s", err);
  ck_assert_double_eq(again.runs[0].warmup_s, 0);
  free_figures(&again);

  /* A warm-up that is not seconds >= 0 is refused, in a baseline and in a run file. */
  json_t *bad[] = {json_real(-0.1), json_string("0.2"), json_null()};
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    json_error_t jerr;
    json_t *doc = json_load_file(at("nvidia-h100-80gb-hbm3.json"), 0, &jerr);
    ck_assert_ptr_nonnull(doc);
    json_object_set(json_array_get(json_object_get(doc, "runs"), 1), "warmup_s", bad[i]);
    ck_assert_int_eq(json_dump_file(doc, at("nvidia-h100-80gb-hbm3.json"), 0), 0);
    json_decref(doc);
    expect_error(load_baseline(at("nvidia-h100-80gb-hbm3.json"), &again, err, sizeof err), err,
                 "field runs[1].warmup_s: expected seconds of warm-up");
    write_run("bad.json", H100, 132, 3000.0, base_set, 3, 34);
    set_warmup("bad.json", json_incref(bad[i]));
    expect_error(load_run(at("bad.json"), &again, err, sizeof err), err,
                 "field context.timing.min_warmup_time_s: expected seconds of warm-up");
    json_decref(bad[i]);
  }
  free_figures(&cold_base);
  free_figures(&cold);
  free_figures(&warm);
  free_figures(&warm2);
  free_figures(&warm_base);
}
END_TEST

/* One baseline per GPU holds every family; each family's gate and bless touch only that family. */
START_TEST(families_share_one_baseline) {
  char err[1024];
  const fake_bench ew[] = {{"elementwise/add/N:1", 1000}}, rd[] = {{"reduce/v7/N:1", 500}, {"reduce/cub/N:1", 510}};
  gate_figures runs[4], base, again, view, rd_new, merged_rd;
  for (int r = 0; r < 2; r++) {
    char name[64];
    FORMAT(name, "fam_ew%d.json", r);
    write_run(name, H100, 132, 3000.0, ew, 1, 50 + r);
    ck_assert(load_run(at(name), &runs[r], err, sizeof err) == 0);
    FORMAT(name, "fam_rd%d.json", r);
    write_run(name, H100, 132, 3000.0, rd, 2, 60 + r);
    ck_assert(load_run(at(name), &runs[2 + r], err, sizeof err) == 0);
  }
  /* Runs of two families merge side by side. */
  ck_assert_msg(merge_runs(runs, 4, &base, err, sizeof err) == 0, "%s", err);
  ck_assert_uint_eq(base.n, 3);
  ck_assert_uint_eq(base.nruns, 4);
  ck_assert_uint_eq(find_bench(&base, "reduce/cub/N:1")->nruns, 2);
  /* The elementwise gate sees only elementwise: nothing of reduce is "missing". */
  families_of(&base, &runs[0], &view);
  ck_assert_uint_eq(view.n, 1);
  gate_policy p = default_policy();
  p.min_delta_ns = 0; /* these fakes are 1-3 us long */
  comparison *c;
  size_t n = compare_figures(&view, &runs[0], &p, &c);
  ck_assert_uint_eq(n, 1);
  ck_assert_int_eq(c[0].v, VERDICT_SAME);
  free(c);
  free(view.b);
  /* Re-blessing reduce replaces reduce only, and keeps elementwise with its runs. */
  const fake_bench rd2[] = {{"reduce/v7/N:1", 450}};
  write_run("fam_rd_new.json", H100, 132, 2900.0, rd2, 1, 70);
  ck_assert(load_run(at("fam_rd_new.json"), &rd_new, err, sizeof err) == 0);
  ck_assert(merge_runs(&rd_new, 1, &merged_rd, err, sizeof err) == 0);
  /* bless --only: re-blessing reduce/v7 alone replaces its runs and keeps reduce/cub's. */
  gate_figures only_v7;
  ck_assert_msg(replace_families(&base, &merged_rd, 1, &only_v7, err, sizeof err) == 0, "%s", err);
  ck_assert_uint_eq(only_v7.n, 3);
  ck_assert_uint_eq(find_bench(&only_v7, "reduce/cub/N:1")->nruns, 2);
  ck_assert_uint_eq(find_bench(&only_v7, "reduce/v7/N:1")->nruns, 1);
  ck_assert_double_eq_tol(only_v7.runs[find_bench(&only_v7, "reduce/v7/N:1")->runs[0].run].copy_bytes_per_second,
                          2900e9, 1);
  ck_assert_uint_eq(only_v7.nruns, 5); /* all four old runs still measure something kept, and the new one */
  free_figures(&only_v7);
  ck_assert_msg(replace_families(&base, &merged_rd, 0, &again, err, sizeof err) == 0, "%s", err);
  ck_assert_uint_eq(again.n, 2);
  ck_assert_ptr_nonnull(find_bench(&again, "elementwise/add/N:1"));
  ck_assert_ptr_null(find_bench(&again, "reduce/cub/N:1"));
  ck_assert_uint_eq(again.nruns, 3); /* two elementwise runs kept, the reduce runs replaced by one */
  const gate_bench *v7 = find_bench(&again, "reduce/v7/N:1");
  ck_assert_double_eq_tol(again.runs[v7->runs[0].run].copy_bytes_per_second, 2900e9, 1);
  const gate_bench *add = find_bench(&again, "elementwise/add/N:1");
  for (size_t r = 0; r < add->nruns; r++)
    ck_assert_double_eq_tol(again.runs[add->runs[r].run].copy_bytes_per_second, 3000e9, 1);
  /* And it survives a save and load. */
  ck_assert(save_baseline(at("nvidia-h100-80gb-hbm3.json"), &again, err, sizeof err) == 0);
  gate_figures loaded;
  ck_assert_msg(load_baseline(at("nvidia-h100-80gb-hbm3.json"), &loaded, err, sizeof err) == 0, "%s", err);
  ck_assert_uint_eq(loaded.n, 2);
  ck_assert_uint_eq(loaded.nruns, 3);
  free_figures(&loaded);
  for (int r = 0; r < 4; r++) free_figures(&runs[r]);
  free_figures(&base);
  free_figures(&again);
  free_figures(&rd_new);
  free_figures(&merged_rd);
}
END_TEST

/* The report's reader: failed benchmarks are kept aside (the gate's load_run refuses the run),
 * and the context's peak, the program and each benchmark's FLOPs come with the figures. */
START_TEST(report_reader_keeps_failures_aside) {
  char err[1024];
  json_error_t jerr;
  json_t *root = json_load_file("perf/runner/testdata/h100_elementwise.json", 0, &jerr);
  ck_assert_ptr_nonnull(root);
  json_array_append_new(json_object_get(root, "benchmarks"),
                        json_pack("{s:s, s:s, s:b, s:s}", "name", "elementwise/broken/N:16", "run_type", "iteration",
                                  "error_occurred", 1, "error_message", "self-check failed: 16 of 16 wrong"));
  ck_assert(json_dump_file(root, at("with_failure.json"), 0) == 0);
  json_decref(root);

  gate_figures f;
  expect_error(load_run(at("with_failure.json"), &f, err, sizeof err), err, "16 of 16 wrong");
  run_extras x;
  ck_assert_msg(load_run_with_extras(at("with_failure.json"), &f, &x, err, sizeof err) == 0, "%s", err);
  ck_assert_uint_eq(f.n, 9);
  ck_assert_uint_eq(x.nfailed, 1);
  ck_assert_str_eq(x.failed[0].name, "elementwise/broken/N:16");
  ck_assert_str_eq(x.failed[0].message, "self-check failed: 16 of 16 wrong");
  ck_assert_double_eq_tol(x.peak_gbps, 3352.32, 1e-9);
  ck_assert_str_eq(x.compute_capability, "9.0");
  ck_assert_str_eq(x.executable, "elementwise_bench");
  for (size_t i = 0; i < f.n; i++) ck_assert_int_eq(x.library_reference[i], 0); /* no "reference" label in this file */
  /* add: one FLOP per element, from flops_per_second x real_time of its first entry. */
  for (size_t i = 0; i < f.n; i++)
    if (!strcmp(f.b[i].name, "elementwise/add/N:1048576")) ck_assert_double_eq_tol(x.flops_per_call[i], 1048576, 1e3);
  free_run_extras(&x);
  free_figures(&f);

  /* Nothing but failures: an error that says so, naming the first. */
  write_text(
      "all_failed.json",
      "{\"context\": {\"json_schema_version\": 1, \"date\": \"d\", \"host_name\": \"h\", \"copy_bandwidth_GBps\": 1,"
      " \"gpu\": {\"name\": \"G\", \"sm_count\": 1, \"mem_clock_max_mhz\": 1, \"bus_width_bits\": 1, \"ecc\": true,"
      " \"driver_version\": \"\", \"runtime_version\": \"\"}}, \"benchmarks\": [{\"name\": \"a/b\", \"run_type\":"
      " \"iteration\", \"error_occurred\": true, \"error_message\": \"self-check failed\"}]}");
  expect_error(load_run_with_extras(at("all_failed.json"), &f, &x, err, sizeof err), err,
               "every benchmark failed in the run (a/b: self-check failed)");
}
END_TEST

/* A real runner output from an H100 (perf/runner/testdata) reads as the gate expects. */
START_TEST(real_h100_run_is_read) {
  gate_figures f;
  char err[1024];
  ck_assert_msg(load_run("perf/runner/testdata/h100_elementwise.json", &f, err, sizeof err) == 0, "%s", err);
  ck_assert_str_eq(f.gpu.slug, "nvidia-h100-80gb-hbm3");
  ck_assert_int_eq(f.gpu.sm_count, 132);
  ck_assert_uint_eq(f.n, 9);
  ck_assert_double_gt(f.runs[0].copy_bytes_per_second, 2e12);
  const gate_bench *b = find_bench(&f, "elementwise/add_float4/N:268435456");
  ck_assert_ptr_nonnull(b);
  /* 3 repetitions pooled into one measure: 12 x 2^28 bytes at roughly 3 TB/s. */
  ck_assert_uint_gt(b->runs[0].nsamples, 3 * 10);
  ck_assert_double_gt(b->runs[0].time_ns, 0.8e6);
  ck_assert_double_lt(b->runs[0].time_ns, 1.5e6);
  free_figures(&f);

  /* A run of gate check (--contexts=16) on an H100: the short benchmarks bring 16 context
   * medians and their mean as the time; the 2^28 ones their one context. */
  ck_assert_msg(load_run("perf/runner/testdata/h100_copy_16contexts.json", &f, err, sizeof err) == 0, "%s", err);
  ck_assert_int_eq(f.runs[0].contexts, 16);
  ck_assert_double_eq_tol(f.runs[0].contexts_below_s, 50e-6, 1e-12);
  b = find_bench(&f, "copy/memcpy/N:1048576");
  ck_assert_ptr_nonnull(b);
  ck_assert_uint_eq(b->runs[0].ncontexts, 16);
  double sum = 0;
  for (size_t k = 0; k < 16; k++) sum += b->runs[0].contexts_ns[k];
  ck_assert_double_eq_tol(b->runs[0].time_ns, sum / 16, 1e-6);
  b = find_bench(&f, "copy/memcpy/N:268435456");
  ck_assert_ptr_nonnull(b);
  ck_assert_uint_eq(b->runs[0].ncontexts, 1);
  ck_assert_double_eq(b->runs[0].contexts_ns[0], b->runs[0].time_ns);
  free_figures(&f);
}
END_TEST

START_TEST(slugs) {
  char s[64];
  gpu_slug("NVIDIA H100 80GB HBM3", s, sizeof s);
  ck_assert_str_eq(s, "nvidia-h100-80gb-hbm3");
  gpu_slug("  NVIDIA  A100-SXM4-40GB ", s, sizeof s);
  ck_assert_str_eq(s, "nvidia-a100-sxm4-40gb");
}
END_TEST

int main(int argc, char **argv) {
  if (test_setup(argc, argv)) return 2;
  Suite *s = suite_create("gate_figures");
  TCase *tc = tcase_create("figures");
  tcase_set_timeout(tc, 30);
  tcase_add_test(tc, run_file_is_read);
  tcase_add_test(tc, baseline_round_trips_atomically);
  tcase_add_test(tc, bad_input_is_named);
  tcase_add_test(tc, failures_and_repetitions_are_typed);
  tcase_add_test(tc, integers_are_range_checked);
  tcase_add_test(tc, baseline_runs_are_counted_once_and_dated);
  tcase_add_test(tc, long_strings_are_refused);
  tcase_add_test(tc, wrong_gpu_is_refused);
  tcase_add_test(tc, flush_methods_do_not_mix);
  tcase_add_test(tc, warm_ups_do_not_mix);
  tcase_add_test(tc, families_share_one_baseline);
  tcase_add_test(tc, real_h100_run_is_read);
  tcase_add_test(tc, slugs);
  tcase_add_test(tc, report_reader_keeps_failures_aside);
  suite_add_tcase(s, tc);
  return run_suite(s);
}
