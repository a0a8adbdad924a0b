/* The run JSON's schema, defined once: a table of the fields the benchmark runner writes
 * (perf/runner/json_reporter.c) and the gate reads (perf/gate/run_reader.c), with each field's JSON
 * type, where it must be present, its unit and what it means. The runner's tests validate its output
 * against it (perf/runner/schema.c) and the gate refuses a run file missing a field it requires,
 * naming the field (run_schema_check). Pure C plus jansson; it depends on neither side, so both may
 * depend on it.
 *
 * The file is Google Benchmark's JSON (json_schema_version 1, which tools/compare.py reads) with the
 * GPU's context and each repetition's samples added. */
#ifndef PERF_SCHEMA_RUN_SCHEMA_H
#define PERF_SCHEMA_RUN_SCHEMA_H

#include <jansson.h>
#include <stddef.h>

typedef enum { RS_OBJECT, RS_ARRAY, RS_STRING, RS_INTEGER, RS_NUMBER, RS_BOOLEAN } rs_type;

/* The kinds of entry of "benchmarks": a measured repetition, an aggregate over repetitions, a failed
 * benchmark ("error_occurred": true), any other run_type (which readers skip). */
enum { RS_ITERATION = 1, RS_AGGREGATE = 2, RS_FAILED = 4, RS_OTHER = 8, RS_ALL = 15 };

typedef struct {
  const char *object; /* "" (the top level), "context", "context.gpu", ..., or "benchmarks[]" (each entry) */
  const char *name;
  rs_type type;
  /* Where a file must have it: RS_ALL (outside benchmarks[], any non-zero value), or the kinds of
   * entry; 0 where it may be absent. `required`: readers refuse a file without it (the gate does).
   * `written`: the runner always writes it, and always has, so every run file has it (its tests
   * require it); readers do not rely on it. required is a subset of written. */
  unsigned required, written;
  int from_user;           /* given by --benchmark_context, not by the runner */
  const char *unit;        /* "" when none; "time_unit": the entry's time_unit */
  const char *description; /* what it is; for a field that may be absent, what its absence means */
} run_field;

extern const run_field run_fields[];
extern const size_t run_nfields;

/* The row of object.name, or NULL. */
const run_field *run_schema_find(const char *object, const char *name);

/* "an object", "an array", "a string", "an integer", "a number", "a boolean". */
const char *run_schema_type_name(rs_type t);

/* What run_schema_check holds a file to: the fields readers require, or every field the runner
 * writes (and the types of the optional ones that are there). */
typedef enum { RS_CHECK_REQUIRED, RS_CHECK_WRITTEN } rs_level;

typedef struct {
  const run_field *field; /* the first field that is missing or not of its type */
  char where[64];         /* the path of its object: "", "context.gpu", "benchmarks[3]" */
  int present;            /* 1: there, but not of its type */
} run_schema_problem;

/* 0 when doc (a JSON object) has every field `level` asks for, each of its type; else 1 with the
 * first that does not in *p: the top level and the context in the table's order, then each entry of
 * benchmarks in turn. Checks nothing else (values, order, sums): each side adds its own rules. */
int run_schema_check(const json_t *doc, rs_level level, run_schema_problem *p);

/* "context.gpu.sm_count", "benchmarks[3].samples", "context": where and name of a problem. */
void run_schema_path(const run_schema_problem *p, char *buf, size_t len);

#endif
