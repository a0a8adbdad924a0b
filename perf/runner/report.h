/* Writers for benchmark results (pure C): Google Benchmark's JSON schema
 * (through jansson), its aligned console table, and CSV.
 *
 * JSON: {"context": {..., "json_schema_version": 1, "gpu": {...}},
 *        "benchmarks": [one "iteration" entry per repetition, then, with more
 *        than one repetition, "aggregate" entries _mean, _median, _stddev, _cv]}
 * real_time is the median CUDA-event time of the repetition's kept samples,
 * cpu_time the median host wall time of their run() calls (launch cost and any
 * host step), both in ns; "samples" holds every kept GPU time.
 */
#ifndef PERF_RUNNER_REPORT_H
#define PERF_RUNNER_REPORT_H

#include <jansson.h>
#include <stdio.h>

#include "perf/runner/results.h"
#include "perf/runner/stats.h"

/* Derived numbers of one repetition. Unknown percentages are negative. */
typedef struct {
  stats_summary gpu;      /* over the kept GPU sample times (ns) */
  double real_ns, cpu_ns; /* medians of GPU and host times */
  double bytes_per_second;
  double gbps;             /* bytes_per_second / 1e9 */
  double pct_peak;         /* % of the theoretical peak bandwidth; < 0: unknown */
  double pct_copy;         /* % of the cudaMemcpy probe's bandwidth; < 0: unknown */
  double flops_per_second; /* 0 when the case gives no flops */
} rep_metrics;

void report_rep_metrics(const run_context *ctx, const bench_result *r, const rep_result *rep, rep_metrics *m);

typedef enum { AGG_MEAN, AGG_MEDIAN, AGG_STDDEV, AGG_CV, AGG_COUNT } agg_kind;
const char *agg_name(agg_kind k);
/* Aggregate of x[0..n) the way Google Benchmark computes it (sample stddev,
 * cv = stddev / mean). */
double agg_value(agg_kind k, const double *x, size_t n);

/* Context keys the runner writes itself; --benchmark_context may not use them. */
int report_context_key_reserved(const char *key);

/* "sw_power_cap,hw_slowdown" for a mask of NVML clock event reasons ("" if 0). */
void report_throttle_names(unsigned long long mask, char *buf, size_t len);

/* The whole document. aggregates_only drops the iteration entries of
 * benchmarks that have aggregates (more than one repetition). NULL on
 * allocation failure. */
json_t *report_json(const run_context *ctx, const bench_result *res, size_t n, int aggregates_only);
/* Writes report_json's document; returns 0 or -1. */
int report_write_json(FILE *f, const run_context *ctx, const bench_result *res, size_t n, int aggregates_only);
/* Flags for json_dumpf/json_dumps that every writer uses. */
#define REPORT_JSON_FLAGS (JSON_INDENT(2) | JSON_REAL_PRECISION(10))

/* Console: a header describing the run, then one row per result, streamed as
 * results arrive. name_width comes from report_console_width over all names. */
int report_console_width(const char *const *names, size_t n, int repetitions);
void report_console_header(FILE *f, const run_context *ctx, int name_width);
void report_console_result(FILE *f, const run_context *ctx, const bench_result *r, int name_width, int aggregates_only);
/* Human-readable time column, Google Benchmark style ("12345 ns", "9.87 ns"). */
void report_format_time(double ns, char *buf, size_t len);

void report_csv_header(FILE *f);
void report_csv_result(FILE *f, const run_context *ctx, const bench_result *r, int aggregates_only);

#endif
