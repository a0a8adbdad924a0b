/* The numbers every output format reports (pure C): what a repetition's samples come to, and the
 * aggregates over repetitions, computed once here so that the console, JSON and CSV reporters
 * (reporter.h) agree.
 *
 * real_time is the median CUDA-event time of the repetition's kept samples (with --contexts the
 * mean of the contexts' medians), cpu_time the median host wall time of their run() calls (launch
 * cost and any host step), both in ns.
 */
#ifndef PERF_RUNNER_REPORT_H
#define PERF_RUNNER_REPORT_H

#include <stddef.h>

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

/* The per-repetition values that get aggregates. */
typedef enum { MET_REAL, MET_CPU, MET_BPS, MET_GBPS, MET_PEAK, MET_COPY, MET_FLOPS, MET_COUNT } report_metric;
double report_metric_value(const rep_metrics *m, report_metric f);

/* Each metric's aggregates over a benchmark's repetitions. */
typedef struct {
  double v[MET_COUNT][AGG_COUNT];
  int known[MET_COUNT]; /* every repetition had the value */
} agg_table;

/* A benchmark gets aggregates when it did not fail and has more than one repetition. */
int report_has_aggregates(const bench_result *r);
/* 0, or -1 out of memory. */
int report_aggregates(const run_context *ctx, const bench_result *r, agg_table *t);

/* Context keys the runner writes itself (perf/schema/run_schema.c) or Google Benchmark does;
 * --benchmark_context may not use them. */
int report_context_key_reserved(const char *key);

/* "sw_power_cap,hw_slowdown" for a mask of NVML clock event reasons ("" if 0). */
void report_throttle_names(unsigned long long mask, char *buf, size_t len);

#endif
