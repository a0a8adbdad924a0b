#include "perf/runner/report.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "perf/schema/run_schema.h"

/* ---------- derived numbers ---------- */

void report_rep_metrics(const run_context *ctx, const bench_result *r, const rep_result *rep, rep_metrics *m) {
  memset(m, 0, sizeof *m);
  m->pct_peak = m->pct_copy = -1;
  if (rep->n == 0) return;
  stats_summarize(rep->gpu_ns, rep->n, &m->gpu);
  m->real_ns = m->gpu.median;
  stats_summary per_context;
  if (rep->ncontext >= 2 && stats_summarize(rep->context_ns, rep->ncontext, &per_context) == 0)
    m->real_ns = per_context.mean; /* see perf/runner/contexts.h */
  m->cpu_ns = stats_median(rep->host_ns, rep->n);
  if (m->real_ns <= 0) return;
  m->bytes_per_second = r->bytes / (m->real_ns * 1e-9);
  m->gbps = m->bytes_per_second / 1e9;
  if (ctx->gpu.peak_gbps > 0) m->pct_peak = 100 * m->gbps / ctx->gpu.peak_gbps;
  if (ctx->copy_gbps > 0) m->pct_copy = 100 * m->gbps / ctx->copy_gbps;
  if (r->flops > 0) m->flops_per_second = r->flops / (m->real_ns * 1e-9);
}

static const char *kAggNames[AGG_COUNT] = {"mean", "median", "stddev", "cv"};

const char *agg_name(agg_kind k) { return k < AGG_COUNT ? kAggNames[k] : "?"; }

double agg_value(agg_kind k, const double *x, size_t n) {
  stats_summary s;
  if (stats_summarize(x, n, &s)) return 0;
  switch (k) {
    case AGG_MEAN: return s.mean;
    case AGG_MEDIAN: return s.median;
    case AGG_STDDEV: return s.stddev;
    case AGG_CV: return s.cv;
    default: return 0;
  }
}

double report_metric_value(const rep_metrics *m, report_metric f) {
  switch (f) {
    case MET_REAL: return m->real_ns;
    case MET_CPU: return m->cpu_ns;
    case MET_BPS: return m->bytes_per_second;
    case MET_GBPS: return m->gbps;
    case MET_PEAK: return m->pct_peak;
    case MET_COPY: return m->pct_copy;
    default: return m->flops_per_second;
  }
}

int report_has_aggregates(const bench_result *r) { return !r->failed && r->nreps > 1; }

int report_aggregates(const run_context *ctx, const bench_result *r, agg_table *t) {
  memset(t, 0, sizeof *t);
  double *x = malloc((size_t)r->nreps * sizeof *x);
  if (!x) return -1;
  rep_metrics *m = malloc((size_t)r->nreps * sizeof *m);
  if (!m) {
    free(x);
    return -1;
  }
  for (int i = 0; i < r->nreps; i++) report_rep_metrics(ctx, r, &r->reps[i], &m[i]);
  for (int f = 0; f < MET_COUNT; f++) {
    t->known[f] = 1;
    for (int i = 0; i < r->nreps; i++) {
      x[i] = report_metric_value(&m[i], (report_metric)f);
      if ((f == MET_PEAK || f == MET_COPY) && x[i] < 0) t->known[f] = 0;
    }
    if (f == MET_FLOPS && r->flops <= 0) t->known[f] = 0;
    for (int k = 0; k < AGG_COUNT; k++) t->v[f][k] = agg_value((agg_kind)k, x, (size_t)r->nreps);
  }
  free(x);
  free(m);
  return 0;
}

/* ---------- misc ---------- */

/* Google Benchmark's own context keys, which the runner does not write but compare.py may read. */
static const char *kGoogleBenchmarkKeys[] = {"caches", "mhz_per_cpu", "cpu_scaling_enabled"};

int report_context_key_reserved(const char *key) {
  const run_field *f = run_schema_find("context", key);
  if (f) return !f->from_user;
  for (size_t i = 0; i < sizeof kGoogleBenchmarkKeys / sizeof *kGoogleBenchmarkKeys; i++)
    if (strcmp(key, kGoogleBenchmarkKeys[i]) == 0) return 1;
  return 0;
}

void report_throttle_names(unsigned long long mask, char *buf, size_t len) {
  static const struct {
    unsigned long long bit;
    const char *name;
  } kBits[] = {
      {0x1ull, "gpu_idle"},
      {0x2ull, "applications_clocks_setting"},
      {0x4ull, "sw_power_cap"},
      {0x8ull, "hw_slowdown"},
      {0x10ull, "sync_boost"},
      {0x20ull, "sw_thermal_slowdown"},
      {0x40ull, "hw_thermal_slowdown"},
      {0x80ull, "hw_power_brake_slowdown"},
      {0x100ull, "display_clock_setting"},
  };
  size_t k = 0;
  if (len) buf[0] = '\0';
  for (size_t i = 0; i < sizeof kBits / sizeof *kBits; i++) {
    if (!(mask & kBits[i].bit)) continue;
    mask &= ~kBits[i].bit;
    int m = snprintf(buf + k, len > k ? len - k : 0, "%s%s", k ? "," : "", kBits[i].name);
    if (m > 0) k += (size_t)m;
  }
  if (mask) snprintf(buf + k, len > k ? len - k : 0, "%s0x%llx", k ? "," : "", mask);
}
