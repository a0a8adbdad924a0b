/* CPU tests of the reporters (perf/runner/reporter.h) on synthetic results: the numbers in
 * the JSON (written, then read back through jansson), the console table and
 * CSV, and what each writes as results arrive. */
#define _GNU_SOURCE
#include <check.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "perf/runner/report.h"
#include "perf/runner/reporter.h"
#include "perf/runner/synthetic.h"
#include "tests/support/check_run.h"

static run_context ctx;
static bench_result res[SYN_RESULTS];

static void setup(void) { synthetic_results(&ctx, res); }

/* Writes with `writer` into memory and returns the text (free it). */
static char *capture_json(int aggregates_only) {
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  ck_assert_ptr_nonnull(f);
  reporter r;
  json_reporter(&r, f, aggregates_only);
  ck_assert_int_eq(reporter_write(&r, &ctx, res, SYN_RESULTS), 0);
  fclose(f);
  return buf;
}

static json_t *entry(json_t *list, const char *name, int repetition_index) {
  for (size_t i = 0; i < json_array_size(list); i++) {
    json_t *e = json_array_get(list, i);
    json_t *ri = json_object_get(e, "repetition_index");
    if (!strcmp(json_string_value(json_object_get(e, "name")), name) &&
        (repetition_index < 0 || (ri && json_integer_value(ri) == repetition_index)))
      return e;
  }
  ck_abort_msg("no entry %s #%d", name, repetition_index);
  return NULL;
}

static double num(json_t *e, const char *key) {
  json_t *v = json_object_get(e, key);
  ck_assert_msg(json_is_number(v), "%s missing or not a number", key);
  return json_number_value(v);
}

START_TEST(json_round_trip_values) {
  char *text = capture_json(0);
  json_error_t jerr;
  json_t *doc = json_loads(text, 0, &jerr);
  ck_assert_msg(doc != NULL, "written JSON does not parse: %s (line %d)", jerr.text, jerr.line);
  free(text);

  json_t *c = json_object_get(doc, "context");
  ck_assert_int_eq(json_integer_value(json_object_get(c, "json_schema_version")), 1);
  ck_assert_str_eq(json_string_value(json_object_get(c, "seed")), "18446744073709551557");
  ck_assert_str_eq(json_string_value(json_object_get(c, "commit")), "abc123");
  ck_assert_double_eq_tol(num(c, "copy_bandwidth_GBps"), 3000, 1e-9);
  ck_assert_str_eq(json_string_value(json_object_get(c, "l2_flush_method")), "read");
  json_t *launch = json_object_get(c, "launch_ns");
  ck_assert_uint_eq(json_array_size(launch), 3); /* the first context and two more */
  ck_assert_double_eq_tol(json_number_value(json_array_get(launch, 0)), 3904, 1e-9);
  ck_assert_double_eq_tol(json_number_value(json_array_get(launch, 2)), 4032, 1e-9);
  json_t *gpu = json_object_get(c, "gpu");
  ck_assert_str_eq(json_string_value(json_object_get(gpu, "uuid")), "GPU-00000000-0000-0000-0000-000000000000");
  ck_assert_double_eq_tol(num(gpu, "peak_GBps"), 3352.32, 1e-6);
  ck_assert(json_is_true(json_object_get(gpu, "ecc")));

  json_t *list = json_object_get(doc, "benchmarks");
  /* add: 3 iterations + 4 aggregates; memcpy: 1; broken: 1; saxpy: 2 + 4 */
  ck_assert_uint_eq(json_array_size(list), 7 + 1 + 1 + 6);

  /* Repetition 1 of add_float4: samples 1010 1020 1000 1015 1005 */
  json_t *e = entry(list, "elementwise/add_float4/N:1048576", 1);
  ck_assert_str_eq(json_string_value(json_object_get(e, "run_type")), "iteration");
  ck_assert_str_eq(json_string_value(json_object_get(e, "run_name")), "elementwise/add_float4/N:1048576");
  ck_assert_int_eq(json_integer_value(json_object_get(e, "repetitions")), 3);
  ck_assert_int_eq(json_integer_value(json_object_get(e, "iterations")), 5);
  ck_assert_int_eq(json_integer_value(json_object_get(e, "threads")), 1);
  ck_assert_str_eq(json_string_value(json_object_get(e, "time_unit")), "ns");
  ck_assert_double_eq_tol(num(e, "real_time"), 1010, 1e-9);
  ck_assert_double_eq_tol(num(e, "cpu_time"), 7, 1e-9);
  double bps = 12.0 * 1048576 / 1010e-9;
  ck_assert_double_eq_tol(num(e, "bytes_per_second"), bps, bps * 1e-9);
  /* The file keeps 10 significant digits. */
  ck_assert_double_eq_tol(num(e, "GBps"), bps / 1e9, bps / 1e9 * 1e-9);
  ck_assert_double_eq_tol(num(e, "pct_of_peak"), 100 * bps / 1e9 / 3352.32, 1e-6);
  ck_assert_double_eq_tol(num(e, "pct_of_copy"), 100 * bps / 1e9 / 3000, 1e-6);
  ck_assert_double_eq_tol(num(e, "flops_per_second"), 1048576 / 1010e-9, 1048576 / 1010e-9 * 1e-9);
  ck_assert_double_eq_tol(num(e, "time_mean"), 1010, 1e-9);
  ck_assert_double_eq_tol(num(e, "time_min"), 1000, 1e-9);
  ck_assert_double_eq_tol(num(e, "time_max"), 1020, 1e-9);
  ck_assert_double_eq_tol(num(e, "time_stddev"), sqrt(250.0 / 4), 1e-7);
  ck_assert_double_eq(num(e, "sm_clock_min_mhz"), 1900);
  ck_assert_double_eq(num(e, "discarded_samples"), 0);
  json_t *samples = json_object_get(e, "samples");
  ck_assert_uint_eq(json_array_size(samples), 5);
  ck_assert_double_eq_tol(json_number_value(json_array_get(samples, 2)), 1000, 1e-9);
  ck_assert_ptr_null(json_object_get(e, "label"));
  ck_assert_ptr_null(json_object_get(e, "host_round_trip"));

  /* Aggregates over the repetitions' medians 1000, 1010, 1020. */
  e = entry(list, "elementwise/add_float4/N:1048576_mean", -1);
  ck_assert_str_eq(json_string_value(json_object_get(e, "run_type")), "aggregate");
  ck_assert_str_eq(json_string_value(json_object_get(e, "aggregate_name")), "mean");
  ck_assert_str_eq(json_string_value(json_object_get(e, "aggregate_unit")), "time");
  ck_assert_double_eq_tol(num(e, "real_time"), 1010, 1e-9);
  ck_assert_ptr_null(json_object_get(e, "samples"));
  e = entry(list, "elementwise/add_float4/N:1048576_stddev", -1);
  ck_assert_double_eq_tol(num(e, "real_time"), 10, 1e-9);
  e = entry(list, "elementwise/add_float4/N:1048576_cv", -1);
  ck_assert_str_eq(json_string_value(json_object_get(e, "aggregate_unit")), "percentage");
  ck_assert_double_eq_tol(num(e, "real_time"), 10.0 / 1010, 1e-12);

  /* Reference: labelled; no NVML readings, so no clock counters. */
  e = entry(list, "copy/memcpy/N:1048576", 0);
  ck_assert_str_eq(json_string_value(json_object_get(e, "label")), "reference");
  ck_assert_double_eq_tol(num(e, "real_time"), 703, 1e-9);
  ck_assert_double_eq(num(e, "timed_out"), 1);
  ck_assert_ptr_null(json_object_get(e, "sm_clock_min_mhz"));
  ck_assert_ptr_null(json_object_get(e, "flops_per_second"));

  /* The failed self-check is an error entry, never a number. */
  e = entry(list, "elementwise/broken/N:16", 0);
  ck_assert(json_is_true(json_object_get(e, "error_occurred")));
  ck_assert_ptr_nonnull(strstr(json_string_value(json_object_get(e, "error_message")), "\"quoted\""));
  ck_assert_ptr_null(json_object_get(e, "bytes_per_second"));

  e = entry(list, "elementwise/saxpy/N:16777216", 0);
  ck_assert_double_eq(num(e, "discarded_samples"), 3);
  ck_assert_double_eq(num(e, "throttle_reasons"), 0x24);
  ck_assert_double_eq_tol(num(e, "real_time"), 2150, 1e-9);
  /* A host round trip in its timed region: said on each entry, so the gate need not be told. */
  ck_assert(json_is_true(json_object_get(e, "host_round_trip")));
  ck_assert(json_is_true(json_object_get(entry(list, "elementwise/saxpy/N:16777216_mean", -1), "host_round_trip")));
  json_decref(doc);
}
END_TEST

START_TEST(json_aggregates_only) {
  char *text = capture_json(1);
  json_t *doc = json_loads(text, 0, NULL);
  free(text);
  ck_assert_ptr_nonnull(doc);
  json_t *list = json_object_get(doc, "benchmarks");
  /* add: 4 aggregates; memcpy (1 repetition, no aggregates): its iteration; broken: error; saxpy: 4 */
  ck_assert_uint_eq(json_array_size(list), 4 + 1 + 1 + 4);
  for (size_t i = 0; i < json_array_size(list); i++) {
    json_t *e = json_array_get(list, i);
    const char *rn = json_string_value(json_object_get(e, "run_name"));
    if (!strcmp(rn, "elementwise/add_float4/N:1048576") || !strcmp(rn, "elementwise/saxpy/N:16777216"))
      ck_assert_str_eq(json_string_value(json_object_get(e, "run_type")), "aggregate");
  }
  json_decref(doc);
}
END_TEST

START_TEST(time_formatting) {
  char b[32];
  console_format_time(3.14159, b, sizeof b);
  ck_assert_str_eq(b, "3.14 ns");
  console_format_time(31.4159, b, sizeof b);
  ck_assert_str_eq(b, "31.4 ns");
  console_format_time(1234567.8, b, sizeof b);
  ck_assert_str_eq(b, "1234568 ns");
}
END_TEST

START_TEST(throttle_names) {
  char b[128];
  report_throttle_names(0, b, sizeof b);
  ck_assert_str_eq(b, "");
  report_throttle_names(0x4 | 0x20, b, sizeof b);
  ck_assert_str_eq(b, "sw_power_cap,sw_thermal_slowdown");
  report_throttle_names(0x40 | 0x1000, b, sizeof b);
  ck_assert_str_eq(b, "hw_thermal_slowdown,0x1000");
}
END_TEST

static char *capture_console(int aggregates_only, int *width) {
  const char *names[SYN_RESULTS];
  for (int i = 0; i < SYN_RESULTS; i++) names[i] = res[i].name;
  *width = console_name_width(names, SYN_RESULTS, 3);
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  reporter r;
  console_reporter(&r, f, aggregates_only, *width);
  ck_assert_int_eq(reporter_write(&r, &ctx, res, SYN_RESULTS), 0);
  fclose(f);
  return buf;
}

/* The line that starts with `name` followed by a space. */
static const char *line_of(const char *text, const char *name) {
  size_t n = strlen(name);
  for (const char *p = text; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL)
    if (!strncmp(p, name, n) && p[n] == ' ') return p;
  ck_abort_msg("no console line for %s", name);
  return NULL;
}

static size_t line_len(const char *p) { return strcspn(p, "\n"); }

START_TEST(console_table_is_aligned) {
  int w;
  char *text = capture_console(0, &w);
  fputs(text, stdout); /* for the test log: what the table looks like */
  ck_assert_int_eq(w, (int)strlen("elementwise/add_float4/N:1048576_median"));
  ck_assert_ptr_nonnull(strstr(text, "Running ./synthetic_bench"));
  ck_assert_ptr_nonnull(strstr(text, "Synthetic GPU (test data)"));
  ck_assert_ptr_nonnull(strstr(text, "3352.3 GB/s peak"));
  ck_assert_ptr_nonnull(strstr(text, "cudaMemcpy device-to-device 3000.0 GB/s"));
  ck_assert_ptr_nonnull(strstr(text, "samples with SM clock < 70% of 1980 MHz discarded"));

  const char *head = line_of(text, "Benchmark");
  const char *r1 = line_of(text, "elementwise/add_float4/N:1048576");
  const char *mean = line_of(text, "elementwise/add_float4/N:1048576_mean");
  const char *cv = line_of(text, "elementwise/add_float4/N:1048576_cv");
  const char *mem = line_of(text, "copy/memcpy/N:1048576");
  /* Right-aligned columns: "Time" in the header ends where every time ends. */
  const char *time_end = strstr(head, "Time") + 4;
  size_t col = (size_t)(time_end - head);
  ck_assert(!strncmp(r1 + col - 7, "1000 ns", 7));
  ck_assert(!strncmp(mean + col - 7, "1010 ns", 7));
  ck_assert(!strncmp(cv + col - 6, "0.99 %", 6));
  ck_assert(!strncmp(mem + col - 6, "703 ns", 6));
  /* GB/s column: 12 MiB in 1000 ns */
  const char *gb_end = strstr(head, "GB/s") + 4;
  size_t gcol = (size_t)(gb_end - head);
  ck_assert(!strncmp(r1 + gcol - 7, "12582.9", 7));
  /* Every row is at least as long as the header's fixed columns. */
  ck_assert_uint_ge(line_len(r1), (size_t)(strstr(head, "Notes") - head));
  ck_assert_ptr_nonnull(strstr(mem, "reference"));
  ck_assert_ptr_nonnull(strstr(mem, "TIMEOUT"));
  ck_assert(!strstr(mem, "host-round-trip") || strstr(mem, "host-round-trip") > mem + line_len(mem));
  const char *sax = line_of(text, "elementwise/saxpy/N:16777216");
  ck_assert(strstr(sax, "host-round-trip") && strstr(sax, "host-round-trip") < sax + line_len(sax));
  ck_assert(strstr(sax, "discarded=3") && strstr(sax, "discarded=3") < sax + line_len(sax));
  ck_assert(strstr(sax, "throttle=sw_power_cap,sw_thermal_slowdown"));
  const char *broken = line_of(text, "elementwise/broken/N:16");
  ck_assert(!strncmp(broken + w + 1, "ERROR OCCURRED: 'self-check failed", 34));
  free(text);
}
END_TEST

START_TEST(console_aggregates_only) {
  int w;
  char *text = capture_console(1, &w);
  ck_assert_ptr_null(strstr(text, "elementwise/add_float4/N:1048576 "));
  ck_assert_ptr_nonnull(strstr(text, "elementwise/add_float4/N:1048576_median "));
  ck_assert_ptr_nonnull(strstr(text, "copy/memcpy/N:1048576 ")); /* one repetition: no aggregates to show */
  free(text);
}
END_TEST

/* Splits a CSV line on commas outside quotes; returns the field count. */
static int csv_fields(const char *line, char fields[][128], int max) {
  int n = 0, q = 0;
  size_t k = 0;
  for (const char *p = line;; p++) {
    if (*p == '"') {
      if (q && p[1] == '"') {
        if (n < max && k < 127) fields[n][k++] = '"';
        p++;
        continue;
      }
      q = !q;
      continue;
    }
    if ((*p == ',' && !q) || *p == '\n' || *p == '\0') {
      if (n < max) fields[n][k] = '\0';
      n++;
      k = 0;
      if (*p != ',') return n;
      continue;
    }
    if (n < max && k < 127) fields[n][k++] = *p;
  }
}

START_TEST(csv_rows) {
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  reporter r;
  csv_reporter(&r, f, 0);
  ck_assert_int_eq(reporter_write(&r, &ctx, res, SYN_RESULTS), 0);
  fclose(f);
  char fields[20][128];
  int lines = 0;
  for (char *p = buf; *p; p = strchr(p, '\n') + 1, lines++) {
    ck_assert_int_eq(csv_fields(p, fields, 20), 16);
    if (lines == 0) {
      ck_assert_str_eq(fields[0], "name");
      ck_assert_str_eq(fields[10], "GBps");
    }
    if (!strcmp(fields[0], "copy/memcpy/N:1048576")) {
      ck_assert_str_eq(fields[1], "7");
      ck_assert_str_eq(fields[2], "703");
      ck_assert_str_eq(fields[4], "ns");
      ck_assert_str_eq(fields[7], "reference");
      ck_assert_str_eq(fields[13], ""); /* no flops */
    }
    if (!strcmp(fields[0], "elementwise/broken/N:16")) {
      ck_assert_str_eq(fields[8], "true");
      ck_assert_ptr_nonnull(strstr(fields[9], "\"quoted\""));
    }
  }
  ck_assert_int_eq(lines, 1 + 7 + 1 + 1 + 6);
  free(buf);
}
END_TEST

START_TEST(reserved_context_keys) {
  ck_assert(report_context_key_reserved("json_schema_version"));
  ck_assert(report_context_key_reserved("gpu"));
  ck_assert(report_context_key_reserved("copy_bandwidth_GBps"));
  ck_assert(report_context_key_reserved("launch_ns"));
  ck_assert(report_context_key_reserved("testbed_facts"));
  ck_assert(report_context_key_reserved("caches"));  /* Google Benchmark's */
  ck_assert(!report_context_key_reserved("commit")); /* the user's, by the schema */
  ck_assert(!report_context_key_reserved("purpose"));
}
END_TEST

/* What a reporter has written so far, flushed. */
static const char *so_far(FILE *f, char **buf) {
  fflush(f);
  return *buf ? *buf : "";
}

/* The console and CSV reporters write each result as it comes; the JSON reporter writes nothing until
 * the end, and then the context as it is then (the later contexts' launch probes), and the same
 * document as json_report. */
START_TEST(reporters_stream_and_json_writes_at_the_end) {
  char *buf[3] = {NULL, NULL, NULL};
  size_t len[3];
  FILE *f[3];
  reporter r[3];
  for (int k = 0; k < 3; k++) ck_assert_ptr_nonnull(f[k] = open_memstream(&buf[k], &len[k]));
  console_reporter(&r[0], f[0], 0, 40);
  csv_reporter(&r[1], f[1], 0);
  json_reporter(&r[2], f[2], 0);
  int launches = ctx.n_launch;
  ctx.n_launch = 1; /* the first context's probe alone, at the start */
  for (int k = 0; k < 3; k++) ck_assert_int_eq(r[k].begin(&r[k], &ctx), 0);
  ck_assert_ptr_nonnull(strstr(so_far(f[0], &buf[0]), "Benchmark"));
  ck_assert_ptr_nonnull(strstr(so_far(f[1], &buf[1]), "name,iterations"));
  for (int k = 0; k < 3; k++) ck_assert_int_eq(r[k].result(&r[k], &res[0]), 0);
  ck_assert_ptr_nonnull(strstr(so_far(f[0], &buf[0]), "elementwise/add_float4/N:1048576_cv"));
  ck_assert_ptr_nonnull(strstr(so_far(f[1], &buf[1]), "\"elementwise/add_float4/N:1048576_cv\""));
  ck_assert_str_eq(so_far(f[2], &buf[2]), "");
  for (int i = 1; i < SYN_RESULTS; i++)
    for (int k = 0; k < 3; k++) ck_assert_int_eq(r[k].result(&r[k], &res[i]), 0);
  ctx.n_launch = launches; /* the other contexts' probes, added while the run went on */
  for (int k = 0; k < 3; k++) ck_assert_int_eq(r[k].end(&r[k]), 0);
  for (int k = 0; k < 3; k++) fclose(f[k]);
  json_t *written = json_loads(buf[2], 0, NULL), *whole = json_report(&ctx, res, SYN_RESULTS, 0);
  ck_assert_ptr_nonnull(written);
  ck_assert_uint_eq(json_array_size(json_object_get(json_object_get(written, "context"), "launch_ns")), 3);
  /* Through a dump and back, as a reader sees both. */
  char *text = json_dumps(whole, REPORT_JSON_FLAGS);
  json_t *whole_read = json_loads(text, 0, NULL);
  ck_assert(json_equal(written, whole_read));
  free(text);
  json_decref(written);
  json_decref(whole);
  json_decref(whole_read);
  for (int k = 0; k < 3; k++) free(buf[k]);
}
END_TEST

int main(void) {
  Suite *s = suite_create("report");
  TCase *tc = tcase_create("report");
  tcase_add_checked_fixture(tc, setup, NULL);
  tcase_add_test(tc, json_round_trip_values);
  tcase_add_test(tc, json_aggregates_only);
  tcase_add_test(tc, time_formatting);
  tcase_add_test(tc, throttle_names);
  tcase_add_test(tc, console_table_is_aligned);
  tcase_add_test(tc, console_aggregates_only);
  tcase_add_test(tc, csv_rows);
  tcase_add_test(tc, reserved_context_keys);
  tcase_add_test(tc, reporters_stream_and_json_writes_at_the_end);
  suite_add_tcase(s, tc);
  return run_suite(s);
}
