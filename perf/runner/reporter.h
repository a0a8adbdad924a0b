/* The runner's output formats behind one interface, as Google Benchmark's reporter.h: a reporter is
 * told the run's context, then each benchmark's result once it is final, then that the run ended.
 * One file per format: console_reporter.c (Google Benchmark's aligned table), json_reporter.c (its
 * JSON, the run file the gate reads; fields: perf/schema/run_schema.c) and csv_reporter.c. Pure C,
 * tested on the CPU with synthetic results.
 *
 * JSON: {"context": {..., "json_schema_version": 1, "gpu": {...}},
 *        "benchmarks": [one "iteration" entry per repetition, then, with more
 *        than one repetition, "aggregate" entries _mean, _median, _stddev, _cv]}
 * with every kept GPU time of a repetition in its "samples".
 */
#ifndef PERF_RUNNER_REPORTER_H
#define PERF_RUNNER_REPORTER_H

#include <jansson.h>
#include <stdio.h>

#include "perf/runner/report.h"
#include "perf/runner/results.h"

typedef struct reporter reporter;
struct reporter {
  /* Before the first result. ctx must live until end: the JSON reporter writes it then, as the
   * launch probes of the later CUDA contexts are added to it while the run goes on. 0 or -1. */
  int (*begin)(reporter *self, const run_context *ctx);
  /* One benchmark: its repetitions, then its aggregates (or its error). 0 or -1. */
  int (*result)(reporter *self, const bench_result *r);
  /* After the last result: writes what is held and frees it. 0, or -1 when writing failed. */
  int (*end)(reporter *self);
  FILE *out;
  int aggregates_only; /* leave out the iteration entries of benchmarks that have aggregates */
  int name_width;      /* console: the name column's width (console_name_width) */
  const run_context *ctx;
  void *state; /* json: the document being built */
};

void console_reporter(reporter *r, FILE *out, int aggregates_only, int name_width);
void json_reporter(reporter *r, FILE *out, int aggregates_only);
void csv_reporter(reporter *r, FILE *out, int aggregates_only);

/* begin, each of res[0..n), end: a whole report at once. 0, or -1 when a step failed. */
int reporter_write(reporter *r, const run_context *ctx, const bench_result *res, size_t n);

/* Console: the name column's width for these names, and a time as Google Benchmark prints it
 * ("12345 ns", "9.87 ns"). */
int console_name_width(const char *const *names, size_t n, int repetitions);
void console_format_time(double ns, char *buf, size_t len);

/* JSON: the whole document in memory (NULL on allocation failure), and the flags of json_dumpf that
 * every writer of it uses. */
json_t *json_report(const run_context *ctx, const bench_result *res, size_t n, int aggregates_only);
#define REPORT_JSON_FLAGS (JSON_INDENT(2) | JSON_REAL_PRECISION(10))

#endif
