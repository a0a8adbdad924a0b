/* The gate's reader holds run files to the run JSON's one schema (perf/schema/run_schema.h): for every
 * field the table marks required, a real runner output without it, or with it of another type, is
 * refused and the message names the field. Driven by the table, so a field made required there is
 * required here with no other change. */
#define _GNU_SOURCE
#include <check.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "perf/gate/figures.h"
#include "perf/schema/run_schema.h"
#include "tests/support/check_run.h"

#define FIXTURE "perf/runner/testdata/h100_elementwise.json"

/* The fixture cut to its context, its first iteration entry and its first aggregate: small, and every
 * kind of entry the reader reads or skips. */
static json_t *small_run(void) {
  json_error_t jerr;
  json_t *doc = json_load_file(FIXTURE, 0, &jerr);
  ck_assert_msg(doc != NULL, "%s: %s", FIXTURE, jerr.text);
  json_t *list = json_object_get(doc, "benchmarks"), *keep = json_array();
  json_t *first[2] = {NULL, NULL};
  for (size_t i = 0; i < json_array_size(list); i++) {
    json_t *e = json_array_get(list, i);
    int agg = !strcmp(json_string_value(json_object_get(e, "run_type")), "aggregate");
    if (!first[agg]) first[agg] = e;
  }
  ck_assert(first[0] && first[1]);
  json_array_append(keep, first[0]);
  json_array_append(keep, first[1]);
  json_object_set_new(doc, "benchmarks", keep);
  return doc;
}

/* The object at a table path in doc; benchmarks[] is entry `entry`. */
static json_t *object_of(json_t *doc, const char *path, size_t entry) {
  if (!strcmp(path, "benchmarks[]")) return json_array_get(json_object_get(doc, "benchmarks"), entry);
  json_t *o = doc;
  char buf[64];
  snprintf(buf, sizeof buf, "%s", path);
  for (char *save = NULL, *k = strtok_r(buf, ".", &save); k; k = strtok_r(NULL, ".", &save)) o = json_object_get(o, k);
  return o;
}

/* load_run on doc written to a file: 0, or 1 with the message in err. */
static int load(json_t *doc, char *err, size_t errlen) {
  char path[4096];
  const char *tmp = getenv("TEST_TMPDIR");
  snprintf(path, sizeof path, "%s/run.json", tmp ? tmp : "/tmp");
  ck_assert_int_eq(json_dump_file(doc, path, 0), 0);
  gate_figures f;
  int rc = load_run(path, &f, err, errlen);
  if (rc == 0) free_figures(&f);
  return rc;
}

/* A value of another type than t. */
static json_t *other_type(rs_type t) { return t == RS_STRING ? json_integer(7) : json_string("7"); }

START_TEST(the_fixture_cut_short_is_read) {
  json_t *doc = small_run();
  char err[1024] = "";
  ck_assert_msg(load(doc, err, sizeof err) == 0, "%s", err);
  json_decref(doc);
}
END_TEST

START_TEST(a_required_field_missing_or_of_another_type_is_named) {
  int tried = 0;
  for (size_t i = 0; i < run_nfields; i++) {
    const run_field *f = &run_fields[i];
    for (size_t entry = 0; entry < 2; entry++) {
      unsigned kind = entry == 0 ? RS_ITERATION : RS_AGGREGATE;
      int in_entry = !strcmp(f->object, "benchmarks[]");
      if (!(f->required & (in_entry ? kind : RS_ALL)) || (!in_entry && entry > 0)) continue;
      char field[128], err[1024] = "", want[256];
      if (in_entry)
        snprintf(field, sizeof field, "benchmarks[%zu].%s", entry, f->name);
      else
        snprintf(field, sizeof field, "%s%s%s", f->object, *f->object ? "." : "", f->name);
      for (int missing = 1; missing >= 0; missing--) {
        json_t *doc = small_run(), *o = object_of(doc, f->object, entry);
        ck_assert_msg(json_object_get(o, f->name) != NULL, "the fixture has no %s", field);
        if (missing)
          json_object_del(o, f->name);
        else
          json_object_set_new(o, f->name, other_type(f->type));
        ck_assert_msg(load(doc, err, sizeof err) != 0, "%s %s: the run was read", field,
                      missing ? "missing" : "of another type");
        snprintf(want, sizeof want, "run.json: field %s: expected %s%s", field, run_schema_type_name(f->type),
                 missing ? ", missing" : "");
        ck_assert_msg(strstr(err, want) != NULL, "%s: '%s', want '%s'", field, err, want);
        json_decref(doc);
        tried++;
      }
    }
  }
  printf("%d run files refused, each naming its field\n", tried);
  ck_assert_int_ge(tried, 2 * 20);
}
END_TEST

/* What the table does not require is not required: each written-but-not-required field of the
 * context and the GPU may be absent (files of other producers and of older runners lack them). */
START_TEST(a_field_only_written_may_be_absent) {
  json_t *doc = small_run();
  for (size_t i = 0; i < run_nfields; i++) {
    const run_field *f = &run_fields[i];
    if (f->required || (strcmp(f->object, "context") && strcmp(f->object, "context.gpu"))) continue;
    json_object_del(object_of(doc, f->object, 0), f->name);
  }
  char err[1024] = "";
  ck_assert_msg(load(doc, err, sizeof err) == 0, "%s", err);
  json_decref(doc);
}
END_TEST

int main(void) {
  Suite *s = suite_create("run_schema_reader");
  TCase *tc = tcase_create("run_schema_reader");
  tcase_add_test(tc, the_fixture_cut_short_is_read);
  tcase_add_test(tc, a_required_field_missing_or_of_another_type_is_named);
  tcase_add_test(tc, a_field_only_written_may_be_absent);
  suite_add_tcase(s, tc);
  return run_suite(s);
}
