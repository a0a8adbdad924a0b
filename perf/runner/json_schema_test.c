/* The JSON our writer produces follows Google Benchmark's schema as
 * compare.py reads it (perf/runner/schema): checked on synthetic results written,
 * read back through jansson and validated; on documents broken one rule at a
 * time (each must be rejected); and on every GPU output committed under
 * perf/runner/testdata/ (BUILD passes them with a glob). */
#define _GNU_SOURCE
#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "perf/runner/report.h"
#include "perf/runner/reporter.h"
#include "perf/runner/schema.h"
#include "perf/runner/synthetic.h"
#include "perf/schema/run_schema.h"
#include "tests/support/check_run.h"

#define TESTDATA "perf/runner/testdata"

/* Synthetic results written and parsed back, as a reader of the file sees them. */
static json_t *synthetic_doc(int aggregates_only) {
  run_context ctx;
  bench_result res[SYN_RESULTS];
  synthetic_results(&ctx, res);
  json_t *doc = json_report(&ctx, res, SYN_RESULTS, aggregates_only);
  ck_assert_ptr_nonnull(doc);
  char *text = json_dumps(doc, REPORT_JSON_FLAGS);
  json_decref(doc);
  ck_assert_ptr_nonnull(text);
  /* Keep a copy for inspection (bazel-testlogs/.../test.outputs). */
  const char *dir = getenv("TEST_UNDECLARED_OUTPUTS_DIR");
  if (dir && !aggregates_only) {
    char path[4096];
    snprintf(path, sizeof path, "%s/synthetic.json", dir);
    FILE *f = fopen(path, "w");
    if (f) {
      fputs(text, f);
      fclose(f);
    }
  }
  json_error_t jerr;
  json_t *back = json_loads(text, JSON_REJECT_DUPLICATES, &jerr);
  ck_assert_msg(back != NULL, "written JSON does not parse: %s", jerr.text);
  free(text);
  return back;
}

START_TEST(synthetic_output_is_valid) {
  char err[512] = "";
  for (int agg = 0; agg < 2; agg++) {
    json_t *doc = synthetic_doc(agg);
    ck_assert_msg(schema_validate(doc, err, sizeof err) == 0, "aggregates_only=%d: %s", agg, err);
    json_decref(doc);
  }
}
END_TEST

static json_t *bench_at(json_t *doc, size_t i) { return json_array_get(json_object_get(doc, "benchmarks"), i); }

/* Applies one breakage to a fresh valid document; it must be rejected with a
 * message containing `needle`. */
static void expect_rejected(void (*breakage)(json_t *doc), const char *needle) {
  json_t *doc = synthetic_doc(0);
  breakage(doc);
  char err[512] = "";
  ck_assert_msg(schema_validate(doc, err, sizeof err) != 0, "a broken document (%s) was accepted", needle);
  ck_assert_msg(strstr(err, needle) != NULL, "message '%s' lacks '%s'", err, needle);
  json_decref(doc);
}

static void schema_v2(json_t *d) {
  json_object_set_new(json_object_get(d, "context"), "json_schema_version", json_integer(2));
}
static void no_schema(json_t *d) { json_object_del(json_object_get(d, "context"), "json_schema_version"); }
static void no_gpu(json_t *d) { json_object_del(json_object_get(d, "context"), "gpu"); }
static void no_copy(json_t *d) { json_object_del(json_object_get(d, "context"), "copy_bandwidth_GBps"); }
static void bad_uuid(json_t *d) {
  json_object_set_new(json_object_get(json_object_get(d, "context"), "gpu"), "uuid", json_string("1234"));
}
static void bad_run_type(json_t *d) { json_object_set_new(bench_at(d, 0), "run_type", json_string("warmup")); }
static void bad_unit(json_t *d) { json_object_set_new(bench_at(d, 0), "time_unit", json_string("cycles")); }
static void zero_time(json_t *d) { json_object_set_new(bench_at(d, 0), "real_time", json_real(0)); }
static void string_time(json_t *d) { json_object_set_new(bench_at(d, 0), "cpu_time", json_string("7")); }
static void no_samples(json_t *d) { json_object_del(bench_at(d, 0), "samples"); }
static void median_mismatch(json_t *d) { json_object_set_new(bench_at(d, 0), "real_time", json_real(1001)); }
static void extra_sample(json_t *d) {
  json_array_append_new(json_object_get(bench_at(d, 0), "samples"), json_real(1000));
}
static void repeated_index(json_t *d) { json_object_set_new(bench_at(d, 1), "repetition_index", json_integer(0)); }
static void index_out_of_range(json_t *d) { json_object_set_new(bench_at(d, 2), "repetition_index", json_integer(3)); }
/* The three iterations of add_float4 moved behind everything, its aggregates included. */
static void iteration_after_aggregates(json_t *d) {
  json_t *list = json_object_get(d, "benchmarks");
  for (int i = 0; i < 3; i++) {
    json_array_append(list, json_array_get(list, 0));
    json_array_remove(list, 0);
  }
}
/* An iteration dropped: the aggregates no longer follow all repetitions. */
static void iteration_missing(json_t *d) { json_array_remove(json_object_get(d, "benchmarks"), 1); }
static void missing_aggregate(json_t *d) { json_array_remove(json_object_get(d, "benchmarks"), 6); /* the cv */ }
static void wrong_aggregate_name(json_t *d) {
  json_object_set_new(bench_at(d, 3), "name", json_string("elementwise/add_float4/N:1048576_average"));
}
static void unknown_aggregate(json_t *d) { json_object_set_new(bench_at(d, 3), "aggregate_name", json_string("p90")); }
static void repetitions_disagree(json_t *d) { json_object_set_new(bench_at(d, 1), "repetitions", json_integer(4)); }
static void threads_two(json_t *d) { json_object_set_new(bench_at(d, 0), "threads", json_integer(2)); }
static void error_without_message(json_t *d) {
  json_t *list = json_object_get(d, "benchmarks");
  for (size_t i = 0; i < json_array_size(list); i++)
    if (json_object_get(json_array_get(list, i), "error_occurred"))
      json_object_del(json_array_get(list, i), "error_message");
}
static void not_an_object(json_t *d) { json_object_set_new(d, "benchmarks", json_string("none")); }

START_TEST(broken_documents_are_rejected) {
  expect_rejected(schema_v2, "json_schema_version");
  expect_rejected(no_schema, "json_schema_version");
  expect_rejected(no_gpu, "context.gpu");
  expect_rejected(no_copy, "copy_bandwidth_GBps");
  expect_rejected(bad_uuid, "GPU-");
  expect_rejected(bad_run_type, "run_type 'warmup'");
  expect_rejected(bad_unit, "time_unit 'cycles'");
  expect_rejected(zero_time, "must be > 0");
  expect_rejected(string_time, "cpu_time");
  expect_rejected(no_samples, "samples");
  expect_rejected(median_mismatch, "not the median");
  expect_rejected(extra_sample, "6 samples but iterations = 5");
  expect_rejected(repeated_index, "repeated");
  expect_rejected(index_out_of_range, "outside");
  expect_rejected(iteration_after_aggregates, "after the aggregates");
  expect_rejected(iteration_missing, "2 iteration entries before the aggregates");
  expect_rejected(missing_aggregate, "incomplete aggregates");
  expect_rejected(wrong_aggregate_name, "expected 'elementwise/add_float4/N:1048576_mean'");
  expect_rejected(unknown_aggregate, "'p90'");
  expect_rejected(repetitions_disagree, "differs");
  expect_rejected(threads_two, "threads");
  expect_rejected(error_without_message, "error_message");
  expect_rejected(not_an_object, "benchmarks");
}
END_TEST

static int ends_with(const char *s, const char *suffix) {
  size_t a = strlen(s), b = strlen(suffix);
  return a >= b && !strcmp(s + a - b, suffix);
}

/* Every committed GPU output must follow the schema (none yet is fine: the
 * fixture is added after a GPU run). */
START_TEST(testdata_fixtures_are_valid) {
  DIR *d = opendir(TESTDATA);
  if (!d) {
    ck_assert_msg(errno == ENOENT, "cannot open %s: %s", TESTDATA, strerror(errno));
    printf("no %s/*.json fixtures yet\n", TESTDATA);
    return;
  }
  int count = 0;
  struct dirent *e;
  while ((e = readdir(d))) {
    if (!ends_with(e->d_name, ".json")) continue;
    char path[4096], err[512] = "";
    snprintf(path, sizeof path, "%s/%s", TESTDATA, e->d_name);
    json_error_t jerr;
    json_t *doc = json_load_file(path, JSON_REJECT_DUPLICATES, &jerr);
    ck_assert_msg(doc != NULL, "%s: not JSON: %s (line %d)", path, jerr.text, jerr.line);
    ck_assert_msg(schema_validate(doc, err, sizeof err) == 0, "%s: %s", path, err);
    json_t *gpu = json_object_get(json_object_get(doc, "context"), "gpu");
    printf("%s: valid (%zu entries, GPU %s)\n", path, json_array_size(json_object_get(doc, "benchmarks")),
           json_string_value(json_object_get(gpu, "name")));
    json_decref(doc);
    count++;
  }
  closedir(d);
  printf("%d fixture(s) under %s validated\n", count, TESTDATA);
}
END_TEST

/* Marks in seen[] the table's row of every field of object o at `path` and below; fails on a field the
 * table lacks (in the context: unless `user_keys` has it, the --benchmark_context entries). */
static void mark_fields(const json_t *o, const char *path, const char *const *user_keys, char *seen) {
  const char *key;
  const json_t *v;
  json_object_foreach((json_t *)o, key, v) {
    const run_field *f = run_schema_find(path, key);
    int user = 0;
    for (const char *const *u = user_keys; !f && u && *u; u++) user |= !strcmp(*u, key);
    ck_assert_msg(f || user, "%s.%s: written, but not in the run JSON's schema (perf/schema/run_schema.c)", path, key);
    if (!f) continue;
    seen[f - run_fields] = 1;
    char sub[64];
    snprintf(sub, sizeof sub, "%s%s%s", path, *path ? "." : "", key);
    if (f->type == RS_OBJECT) mark_fields(v, sub, !strcmp(sub, "context") ? user_keys : NULL, seen);
    if (!strcmp(sub, "benchmarks"))
      for (size_t i = 0; i < json_array_size(v); i++) mark_fields(json_array_get(v, i), "benchmarks[]", NULL, seen);
  }
}

/* The schema is the whole format: every field the writer writes (here, with a testbed) and every field of
 * the GPU outputs under testdata is a row of it, and every row is written in one of them. */
START_TEST(schema_table_is_the_whole_format) {
  char seen[256] = {0};
  ck_assert_uint_le(run_nfields, sizeof seen);
  run_context ctx;
  bench_result res[SYN_RESULTS];
  synthetic_results(&ctx, res);
  snprintf(ctx.testbed, sizeof ctx.testbed, "Synthetic GPU x1 no NVLink | test CPU | driver 000.00");
  ctx.testbed_facts = (testbed_facts){.gpu_name = "Synthetic GPU", .gpus = 1, .cpu_model = "test CPU"};
  ctx.testbed_source = "detected";
  const char *user[SYN_RESULTS + 1] = {NULL};
  for (size_t i = 0; i < ctx.n_user && i < SYN_RESULTS; i++) user[i] = ctx.user[i].key;
  json_t *doc = json_report(&ctx, res, SYN_RESULTS, 0);
  char err[512] = "";
  ck_assert_msg(schema_validate(doc, err, sizeof err) == 0, "%s", err);
  mark_fields(doc, "", user, seen);
  json_decref(doc);
  static const char *kFixtures[] = {TESTDATA "/h100_copy_16contexts.json", TESTDATA "/h100_elementwise.json"};
  for (size_t i = 0; i < 2; i++) {
    json_error_t jerr;
    doc = json_load_file(kFixtures[i], 0, &jerr);
    ck_assert_msg(doc != NULL, "%s: %s", kFixtures[i], jerr.text);
    static const char *kFixtureUser[] = {"commit", NULL};
    mark_fields(doc, "", kFixtureUser, seen);
    json_decref(doc);
  }
  for (size_t i = 0; i < run_nfields; i++)
    ck_assert_msg(seen[i], "%s.%s: in the schema, but neither the writer nor a GPU output has it", run_fields[i].object,
                  run_fields[i].name);
}
END_TEST

int main(void) {
  Suite *s = suite_create("json_schema");
  TCase *tc = tcase_create("json_schema");
  tcase_add_test(tc, synthetic_output_is_valid);
  tcase_add_test(tc, broken_documents_are_rejected);
  tcase_add_test(tc, testdata_fixtures_are_valid);
  tcase_add_test(tc, schema_table_is_the_whole_format);
  suite_add_tcase(s, tc);
  return run_suite(s);
}
