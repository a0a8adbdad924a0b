/* CPU tests of the run JSON's schema table (perf/schema/run_schema.h): the table is consistent (each
 * object declared before its fields, one row per field, required within written), and
 * run_schema_check finds the first field missing or of another type, at each level. */
#include <check.h>
#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "perf/schema/run_schema.h"
#include "tests/support/check_run.h"

/* The row declaring the object at `path` ("context.gpu" -> context/gpu), or NULL. */
static const run_field *object_row(const char *path) {
  if (!strcmp(path, "benchmarks[]")) return run_schema_find("", "benchmarks");
  const char *dot = strrchr(path, '.');
  char parent[64];
  snprintf(parent, sizeof parent, "%.*s", dot ? (int)(dot - path) : 0, path);
  return run_schema_find(parent, dot ? dot + 1 : path);
}

START_TEST(table_is_consistent) {
  ck_assert_uint_gt(run_nfields, 50);
  for (size_t i = 0; i < run_nfields; i++) {
    const run_field *f = &run_fields[i];
    ck_assert_msg(*f->name && f->description && *f->description, "row %zu: a name and a description", i);
    ck_assert_msg(run_schema_find(f->object, f->name) == f, "%s.%s: declared twice", f->object, f->name);
    ck_assert_msg((f->required & ~f->written) == 0, "%s.%s: required where it is not always written", f->object,
                  f->name);
    ck_assert_msg(!f->from_user || f->written == 0, "%s.%s: the user gives it, so it may be absent", f->object,
                  f->name);
    int entry = !strcmp(f->object, "benchmarks[]");
    ck_assert_msg(entry || ((f->required == 0 || f->required == RS_ALL) && (f->written == 0 || f->written == RS_ALL)),
                  "%s.%s: kinds of entry outside benchmarks[]", f->object, f->name);
    if (*f->object) {
      /* Its object is declared earlier, as an object (benchmarks[]: the array of them). */
      const run_field *o = object_row(f->object);
      ck_assert_msg(o && o < f, "%s.%s: its object is not declared before it", f->object, f->name);
      ck_assert_int_eq(o->type, entry ? RS_ARRAY : RS_OBJECT);
      /* A required field sits in a required object: else a reader could not rely on it. */
      ck_assert_msg(!f->required || o->required, "%s.%s: required in an optional object", f->object, f->name);
    }
    /* The rows of an object come together (the top level's each open what follows them). */
    if (i > 0 && *f->object && strcmp(run_fields[i - 1].object, f->object) != 0)
      for (size_t k = 0; k + 1 < i; k++)
        ck_assert_msg(strcmp(run_fields[k].object, f->object) != 0, "%s: its rows are not together", f->object);
  }
}
END_TEST

/* The smallest document every row with `required` set allows: the required fields alone, of one
 * iteration entry. */
static json_t *required_only(void) {
  json_t *doc = json_object(), *cx = json_object(), *gpu = json_object(), *e = json_object();
  json_object_set_new(doc, "context", cx);
  json_object_set_new(cx, "gpu", gpu);
  json_object_set_new(doc, "benchmarks", json_pack("[o]", e));
  for (size_t i = 0; i < run_nfields; i++) {
    const run_field *f = &run_fields[i];
    json_t *o = !strcmp(f->object, "")       ? doc
        : !strcmp(f->object, "context")      ? cx
        : !strcmp(f->object, "context.gpu")  ? gpu
        : !strcmp(f->object, "benchmarks[]") ? e
                                             : NULL;
    if (!(f->required & RS_ITERATION) || json_object_get(o, f->name)) continue;
    ck_assert_msg(o != NULL, "%s.%s: required in an object this test does not build", f->object, f->name);
    json_t *v = f->type == RS_ARRAY ? json_array()
        : f->type == RS_STRING      ? json_string(!strcmp(f->name, "run_type") ? "iteration" : "x")
        : f->type == RS_INTEGER     ? json_integer(1)
        : f->type == RS_NUMBER      ? json_real(1.5)
        : f->type == RS_BOOLEAN     ? json_true()
                                    : json_object();
    json_object_set_new(o, f->name, v);
  }
  return doc;
}

START_TEST(check_names_the_first_missing_field) {
  run_schema_problem p;
  char path[128];
  json_t *doc = required_only();
  ck_assert_int_eq(run_schema_check(doc, RS_CHECK_REQUIRED, &p), 0);
  /* The runner writes more: the first of it is the context's executable. */
  ck_assert_int_eq(run_schema_check(doc, RS_CHECK_WRITTEN, &p), 1);
  run_schema_path(&p, path, sizeof path);
  ck_assert_str_eq(path, "context.executable");
  ck_assert_int_eq(p.present, 0);
  /* Each required field removed in turn is named; of another type, it is named as present. */
  json_t *cx = json_object_get(doc, "context");
  json_object_del(json_object_get(cx, "gpu"), "ecc");
  ck_assert_int_eq(run_schema_check(doc, RS_CHECK_REQUIRED, &p), 1);
  run_schema_path(&p, path, sizeof path);
  ck_assert_str_eq(path, "context.gpu.ecc");
  ck_assert_str_eq(run_schema_type_name(p.field->type), "a boolean");
  json_object_set_new(json_object_get(cx, "gpu"), "ecc", json_string("on"));
  ck_assert_int_eq(run_schema_check(doc, RS_CHECK_REQUIRED, &p), 1);
  ck_assert_int_eq(p.present, 1);
  json_object_set_new(json_object_get(cx, "gpu"), "ecc", json_false());
  json_t *e = json_array_get(json_object_get(doc, "benchmarks"), 0);
  json_object_del(e, "samples");
  ck_assert_int_eq(run_schema_check(doc, RS_CHECK_REQUIRED, &p), 1);
  run_schema_path(&p, path, sizeof path);
  ck_assert_str_eq(path, "benchmarks[0].samples");
  /* An aggregate needs no samples, nor a failed entry; a failed one needs its message when written. */
  json_object_set_new(e, "run_type", json_string("aggregate"));
  ck_assert_int_eq(run_schema_check(doc, RS_CHECK_REQUIRED, &p), 0);
  json_object_set_new(e, "error_occurred", json_true());
  ck_assert_int_eq(run_schema_check(doc, RS_CHECK_REQUIRED, &p), 0);
  /* A present optional field of another type: the runner's output is refused, a reader's is not. */
  json_object_set_new(e, "run_type", json_string("iteration"));
  json_object_del(e, "error_occurred");
  json_object_set_new(e, "samples", json_array());
  json_object_set_new(e, "label", json_integer(3));
  ck_assert_int_eq(run_schema_check(doc, RS_CHECK_REQUIRED, &p), 0);
  json_object_del(doc, "benchmarks");
  ck_assert_int_eq(run_schema_check(doc, RS_CHECK_REQUIRED, &p), 1);
  run_schema_path(&p, path, sizeof path);
  ck_assert_str_eq(path, "benchmarks");
  json_decref(doc);
}
END_TEST

int main(void) {
  Suite *s = suite_create("run_schema");
  TCase *tc = tcase_create("run_schema");
  tcase_add_test(tc, table_is_consistent);
  tcase_add_test(tc, check_names_the_first_missing_field);
  suite_add_tcase(s, tc);
  return run_suite(s);
}
