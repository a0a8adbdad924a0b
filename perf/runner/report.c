#include "perf/runner/report.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

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

/* The per-repetition values that get aggregates, in one table so the JSON,
 * console and CSV writers agree. */
enum { F_REAL, F_CPU, F_BPS, F_GBPS, F_PEAK, F_COPY, F_FLOPS, F_COUNT };

typedef struct {
  double v[F_COUNT][AGG_COUNT];
  int known[F_COUNT]; /* every repetition had the value */
} agg_table;

static double metric_field(const rep_metrics *m, int f) {
  switch (f) {
    case F_REAL: return m->real_ns;
    case F_CPU: return m->cpu_ns;
    case F_BPS: return m->bytes_per_second;
    case F_GBPS: return m->gbps;
    case F_PEAK: return m->pct_peak;
    case F_COPY: return m->pct_copy;
    default: return m->flops_per_second;
  }
}

static int has_aggregates(const bench_result *r) { return !r->failed && r->nreps > 1; }

static int compute_aggregates(const run_context *ctx, const bench_result *r, agg_table *t) {
  memset(t, 0, sizeof *t);
  double *x = malloc((size_t)r->nreps * sizeof *x);
  if (!x) return -1;
  rep_metrics *m = malloc((size_t)r->nreps * sizeof *m);
  if (!m) {
    free(x);
    return -1;
  }
  for (int i = 0; i < r->nreps; i++) report_rep_metrics(ctx, r, &r->reps[i], &m[i]);
  for (int f = 0; f < F_COUNT; f++) {
    t->known[f] = 1;
    for (int i = 0; i < r->nreps; i++) {
      x[i] = metric_field(&m[i], f);
      if ((f == F_PEAK || f == F_COPY) && x[i] < 0) t->known[f] = 0;
    }
    if (f == F_FLOPS && r->flops <= 0) t->known[f] = 0;
    for (int k = 0; k < AGG_COUNT; k++) t->v[f][k] = agg_value((agg_kind)k, x, (size_t)r->nreps);
  }
  free(x);
  free(m);
  return 0;
}

/* ---------- misc ---------- */

static const char *kReserved[] = {
    "date",
    "host_name",
    "executable",
    "num_cpus",
    "load_avg",
    "library_version",
    "library_build_type",
    "json_schema_version",
    "seed",
    "gpu",
    "copy_bandwidth_GBps",
    "copy_probe_bytes",
    "launch_ns",
    "nvml",
    "clock_filter",
    "l2_flush",
    "l2_flush_bytes",
    "l2_flush_method",
    "timing",
    "caches",
    "mhz_per_cpu",
    "cpu_scaling_enabled",
    "testbed",
    "testbed_facts",
};

int report_context_key_reserved(const char *key) {
  for (size_t i = 0; i < sizeof kReserved / sizeof *kReserved; i++)
    if (strcmp(key, kReserved[i]) == 0) return 1;
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

/* ---------- JSON ---------- */

/* jansson refuses NaN and infinity (json_real returns NULL); an unknown value
 * is left out rather than written as something compare.py cannot read. */
static void set_num(json_t *o, const char *key, double v) {
  if (isfinite(v)) json_object_set_new(o, key, json_real(v));
}

static void set_int(json_t *o, const char *key, long long v) { json_object_set_new(o, key, json_integer(v)); }

static void set_str(json_t *o, const char *key, const char *v) { json_object_set_new(o, key, json_string(v ? v : "")); }

static json_t *gpu_json(const gpu_info *g) {
  json_t *o = json_object();
  set_str(o, "name", g->name);
  set_str(o, "uuid", g->uuid);
  set_str(o, "pci_bus_id", g->pci_bus_id);
  set_str(o, "compute_capability", g->compute_capability);
  set_int(o, "sm_count", g->sm_count);
  set_num(o, "sm_clock_max_mhz", g->sm_clock_max_mhz);
  set_num(o, "mem_clock_max_mhz", g->mem_clock_max_mhz);
  set_int(o, "bus_width_bits", g->bus_width_bits);
  set_num(o, "peak_GBps", g->peak_gbps);
  set_int(o, "l2_cache_bytes", g->l2_bytes);
  set_int(o, "global_mem_bytes", g->global_mem_bytes);
  json_object_set_new(o, "ecc", json_boolean(g->ecc));
  set_str(o, "driver_version", g->driver_version);
  set_str(o, "cuda_driver_version", g->cuda_driver_version);
  set_str(o, "runtime_version", g->runtime_version);
  return o;
}

static json_t *context_json(const run_context *c) {
  json_t *o = json_object();
  set_str(o, "date", c->date);
  set_str(o, "host_name", c->host_name);
  set_str(o, "executable", c->executable);
  set_int(o, "num_cpus", c->num_cpus);
  json_t *load = json_array();
  for (int i = 0; i < 3; i++) json_array_append_new(load, json_real(isfinite(c->load_avg[i]) ? c->load_avg[i] : 0));
  json_object_set_new(o, "load_avg", load);
  set_str(o, "library_version", "cuda_perf runner 1");
  set_str(o, "library_build_type", c->build_type);
  set_int(o, "json_schema_version", 1);
  char seed[32];
  snprintf(seed, sizeof seed, "%llu", (unsigned long long)c->seed);
  set_str(o, "seed", seed); /* a string: a uint64 does not fit JSON integers everywhere */
  for (size_t i = 0; i < c->n_user; i++)
    if (!report_context_key_reserved(c->user[i].key)) set_str(o, c->user[i].key, c->user[i].value);
  json_object_set_new(o, "gpu", gpu_json(&c->gpu));
  set_num(o, "copy_bandwidth_GBps", c->copy_gbps);
  set_num(o, "copy_probe_bytes", c->copy_probe_bytes);
  if (c->n_launch > 0) {
    json_t *a = json_array();
    for (int i = 0; i < c->n_launch; i++) json_array_append_new(a, json_real(c->launch_ns[i]));
    json_object_set_new(o, "launch_ns", a);
  }
  set_str(o, "nvml", c->nvml);
  if (c->testbed[0]) {
    set_str(o, "testbed", c->testbed);
    const testbed_facts *tb = &c->testbed_facts;
    json_t *t = json_object();
    set_str(t, "source", c->testbed_source);
    set_int(t, "gpus", tb->gpus);
    set_int(t, "nvlinks", tb->nvlinks);
    set_str(t, "cpu_model", tb->cpu_model);
    set_str(t, "driver", tb->driver);
    json_object_set_new(o, "testbed_facts", t);
  }
  char filter[160];
  if (c->clock_filter)
    snprintf(filter, sizeof filter, "samples with SM clock < %.2f x %.0f MHz discarded", c->min_clock_ratio,
             c->gpu.sm_clock_max_mhz);
  else
    snprintf(filter, sizeof filter, "disabled (%s)",
             c->min_clock_ratio <= 0 ? "--min_clock_ratio=0" : "no NVML clock readings");
  set_str(o, "clock_filter", filter);
  json_object_set_new(o, "l2_flush", json_boolean(c->l2_flush));
  set_num(o, "l2_flush_bytes", c->l2_flush ? c->l2_flush_bytes : 0);
  if (c->l2_flush) set_str(o, "l2_flush_method", c->l2_flush_write ? "write" : "read");
  json_t *t = json_object();
  set_int(t, "repetitions", c->repetitions);
  set_int(t, "contexts", c->contexts > 0 ? c->contexts : 1);
  set_num(t, "contexts_below_s", c->contexts_below_s);
  set_int(t, "long_contexts", c->long_contexts);
  set_num(t, "min_time_s", c->min_time_s);
  set_num(t, "min_warmup_time_s", c->min_warmup_s);
  set_int(t, "min_samples", c->min_samples);
  set_num(t, "max_noise_pct", c->max_noise_pct);
  set_num(t, "timeout_s", c->timeout_s);
  set_num(t, "min_clock_ratio", c->min_clock_ratio);
  json_object_set_new(o, "timing", t);
  return o;
}

static json_t *entry_head(const bench_result *r, const char *name, const char *run_type) {
  json_t *e = json_object();
  set_str(e, "name", name);
  set_int(e, "family_index", r->family_index);
  set_int(e, "per_family_instance_index", r->instance_index);
  set_str(e, "run_name", r->name);
  set_str(e, "run_type", run_type);
  set_int(e, "repetitions", r->failed ? 1 : r->nreps);
  return e;
}

static json_t *iteration_json(const run_context *ctx, const bench_result *r, int i) {
  const rep_result *rep = &r->reps[i];
  rep_metrics m;
  report_rep_metrics(ctx, r, rep, &m);
  json_t *e = entry_head(r, r->name, "iteration");
  set_int(e, "repetition_index", i);
  set_int(e, "threads", 1);
  set_int(e, "iterations", (long long)rep->n);
  set_num(e, "real_time", m.real_ns);
  set_num(e, "cpu_time", m.cpu_ns);
  set_str(e, "time_unit", "ns");
  set_num(e, "bytes_per_second", m.bytes_per_second);
  if (r->reference) set_str(e, "label", "reference");
  if (r->host_round_trip) json_object_set_new(e, "host_round_trip", json_true());
  set_num(e, "GBps", m.gbps);
  if (m.pct_peak >= 0) set_num(e, "pct_of_peak", m.pct_peak);
  if (m.pct_copy >= 0) set_num(e, "pct_of_copy", m.pct_copy);
  if (r->flops > 0) set_num(e, "flops_per_second", m.flops_per_second);
  set_num(e, "time_mean", m.gpu.mean);
  set_num(e, "time_stddev", m.gpu.stddev);
  set_num(e, "time_cv", m.gpu.cv);
  set_num(e, "time_min", m.gpu.min);
  set_num(e, "time_max", m.gpu.max);
  set_num(e, "noise_pct", 100 * rep->noise);
  set_int(e, "timed_out", rep->timed_out);
  set_int(e, "discarded_samples", (long long)rep->discarded);
  if (rep->clocks_valid) {
    set_int(e, "sm_clock_min_mhz", rep->sm_mhz_min);
    set_int(e, "sm_clock_max_mhz", rep->sm_mhz_max);
    set_int(e, "mem_clock_min_mhz", rep->mem_mhz_min);
    set_int(e, "mem_clock_max_mhz", rep->mem_mhz_max);
    set_int(e, "temperature_max_c", rep->temp_c_max);
    set_int(e, "throttle_reasons", (long long)rep->throttle);
  }
  if (rep->ncontext >= 2) {
    /* real_time is their mean; the samples are those of all the contexts. */
    set_int(e, "contexts", (long long)rep->ncontext);
    json_t *medians = json_array();
    for (size_t k = 0; k < rep->ncontext; k++) json_array_append_new(medians, json_real(rep->context_ns[k]));
    json_object_set_new(e, "context_medians", medians);
  }
  json_t *samples = json_array();
  for (size_t s = 0; s < rep->n; s++) json_array_append_new(samples, json_real(rep->gpu_ns[s]));
  json_object_set_new(e, "samples", samples);
  return e;
}

static json_t *aggregate_json(const bench_result *r, const agg_table *t, agg_kind k) {
  char name[300];
  snprintf(name, sizeof name, "%s_%s", r->name, agg_name(k));
  json_t *e = entry_head(r, name, "aggregate");
  set_int(e, "threads", 1);
  set_str(e, "aggregate_name", agg_name(k));
  set_str(e, "aggregate_unit", k == AGG_CV ? "percentage" : "time");
  set_int(e, "iterations", r->nreps);
  set_num(e, "real_time", t->v[F_REAL][k]);
  set_num(e, "cpu_time", t->v[F_CPU][k]);
  set_str(e, "time_unit", "ns");
  set_num(e, "bytes_per_second", t->v[F_BPS][k]);
  if (r->reference) set_str(e, "label", "reference");
  if (r->host_round_trip) json_object_set_new(e, "host_round_trip", json_true());
  set_num(e, "GBps", t->v[F_GBPS][k]);
  if (t->known[F_PEAK]) set_num(e, "pct_of_peak", t->v[F_PEAK][k]);
  if (t->known[F_COPY]) set_num(e, "pct_of_copy", t->v[F_COPY][k]);
  if (t->known[F_FLOPS]) set_num(e, "flops_per_second", t->v[F_FLOPS][k]);
  return e;
}

static json_t *error_json(const bench_result *r) {
  json_t *e = entry_head(r, r->name, "iteration");
  set_int(e, "repetition_index", 0);
  set_int(e, "threads", 1);
  json_object_set_new(e, "error_occurred", json_true());
  set_str(e, "error_message", r->error);
  set_int(e, "iterations", 0);
  set_num(e, "real_time", 0);
  set_num(e, "cpu_time", 0);
  set_str(e, "time_unit", "ns");
  return e;
}

json_t *report_json(const run_context *ctx, const bench_result *res, size_t n, int aggregates_only) {
  json_t *doc = json_object(), *list = json_array();
  if (!doc || !list) {
    json_decref(doc);
    json_decref(list);
    return NULL;
  }
  json_object_set_new(doc, "context", context_json(ctx));
  for (size_t b = 0; b < n; b++) {
    const bench_result *r = &res[b];
    if (r->failed) {
      json_array_append_new(list, error_json(r));
      continue;
    }
    int aggs = has_aggregates(r);
    if (!(aggs && aggregates_only))
      for (int i = 0; i < r->nreps; i++) json_array_append_new(list, iteration_json(ctx, r, i));
    if (aggs) {
      agg_table t;
      if (compute_aggregates(ctx, r, &t)) {
        json_decref(doc);
        json_decref(list);
        return NULL;
      }
      for (int k = 0; k < AGG_COUNT; k++) json_array_append_new(list, aggregate_json(r, &t, (agg_kind)k));
    }
  }
  json_object_set_new(doc, "benchmarks", list);
  return doc;
}

int report_write_json(FILE *f, const run_context *ctx, const bench_result *res, size_t n, int aggregates_only) {
  json_t *doc = report_json(ctx, res, n, aggregates_only);
  if (!doc) return -1;
  int rc = json_dumpf(doc, f, REPORT_JSON_FLAGS);
  json_decref(doc);
  if (rc == 0 && fputc('\n', f) == EOF) rc = -1;
  return rc;
}

/* ---------- console ---------- */

void report_format_time(double ns, char *buf, size_t len) {
  /* Google Benchmark's precision: 2 decimals below 10, 1 below 100, else none. */
  int prec = ns < 10 ? 2 : ns < 100 ? 1 : 0;
  snprintf(buf, len, "%.*f ns", prec, ns);
}

/* 1234567 -> "1.23M": SI prefixes, as Google Benchmark prints rates. */
static void format_si(double v, char *buf, size_t len) {
  static const char *kPrefix[] = {"", "k", "M", "G", "T", "P", "E"};
  int i = 0;
  while (fabs(v) >= 1000 && i < 6) {
    v /= 1000;
    i++;
  }
  snprintf(buf, len, "%.3g%s", v, kPrefix[i]);
}

static void format_pct(double v, char *buf, size_t len) {
  if (v < 0)
    snprintf(buf, len, "-");
  else
    snprintf(buf, len, "%.1f", v);
}

int report_console_width(const char *const *names, size_t n, int repetitions) {
  int w = (int)strlen("Benchmark");
  int extra = repetitions > 1 ? (int)strlen("_median") : 0;
  for (size_t i = 0; i < n; i++) {
    int l = (int)strlen(names[i]) + extra;
    if (l > w) w = l;
  }
  return w;
}

/* snprintf at buf + *k, keeping *k inside the buffer when the text is cut. */
static void append(char *buf, size_t len, size_t *k, const char *fmt, ...) {
  if (*k >= len) return;
  va_list ap;
  va_start(ap, fmt);
  int m = vsnprintf(buf + *k, len - *k, fmt, ap);
  va_end(ap);
  if (m > 0) *k = *k + (size_t)m < len ? *k + (size_t)m : len - 1;
}

#define ROW_FMT "%-*s %15s %15s %12s %10s %7s %7s %9s%s%s\n"

void report_console_header(FILE *f, const run_context *c, int w) {
  const gpu_info *g = &c->gpu;
  fprintf(f, "%s\n", c->date);
  fprintf(f, "Running %s\n", c->executable);
  fprintf(f,
          "Run on %s (compute capability %s, %d SMs, SM clock max %.0f MHz, %.0f MHz x %d-bit memory = %.1f GB/s peak, "
          "L2 %.0f MiB, "
          "ECC %s)\n",
          g->name, g->compute_capability, g->sm_count, g->sm_clock_max_mhz, g->mem_clock_max_mhz, g->bus_width_bits,
          g->peak_gbps, g->l2_bytes / 1048576.0, g->ecc ? "on" : "off");
  fprintf(f, "Driver %s (CUDA %s), runtime %s; NVML: %s\n", g->driver_version[0] ? g->driver_version : "?",
          g->cuda_driver_version, g->runtime_version, c->nvml);
  if (c->copy_gbps > 0)
    fprintf(f,
            "Copy probe: cudaMemcpy device-to-device %.1f GB/s (%.2f GiB moved per copy); %%copy is relative to it\n",
            c->copy_gbps, c->copy_probe_bytes / 1073741824.0);
  else
    fprintf(f, "Copy probe: not measured; %%copy left out\n");
  if (c->n_launch > 0 && c->launch_ns[0] > 0)
    fprintf(f, "Launch probe: an empty kernel takes %.0f ns, timed like a sample\n", c->launch_ns[0]);
  if (c->l2_flush)
    fprintf(f, "L2 flushed before each sample (%.0f MiB %s, untimed)", c->l2_flush_bytes / 1048576.0,
            c->l2_flush_write ? "write: dirty lines" : "read: clean lines");
  else
    fprintf(f, "Hot L2 (--hot): no flush between samples");
  if (c->clock_filter)
    fprintf(f, "; samples with SM clock < %.0f%% of %.0f MHz discarded\n", 100 * c->min_clock_ratio,
            g->sm_clock_max_mhz);
  else
    fprintf(f, "; clock filter disabled (%s)\n",
            c->min_clock_ratio <= 0 ? "--min_clock_ratio=0" : "no NVML clock readings");
  fprintf(f, "Sampling until >= %ld samples, >= %gs GPU time and noise (rel. std. error) <= %g%%, or %gs\n",
          c->min_samples, c->min_time_s, c->max_noise_pct, c->timeout_s);
  if (c->contexts > 1)
    fprintf(f,
            "Benchmarks under %g us measured again in %d fresh CUDA contexts (min time / %d, at most %d samples each): "
            "Time is the mean of their medians, noise the spread between them\n",
            c->contexts_below_s * 1e6, c->contexts, c->contexts, CONTEXTS_MAX_SAMPLES);
  if (c->contexts > 1 && c->long_contexts > 0)
    fprintf(f,
            "The longer ones measured again in the first %d of those contexts, after the short ones (min time / %d, "
            "at most %d samples each)\n",
            c->long_contexts, c->long_contexts, CONTEXTS_MAX_SAMPLES);
  char line[512];
  int len = snprintf(line, sizeof line, ROW_FMT, w, "Benchmark", "Time", "CPU", "Iterations", "GB/s", "%peak", "%copy",
                     "FLOP/s", "  ", "Notes");
  int dashes = len - 1 + 30; /* the notes column is wider than its title */
  for (int i = 0; i < dashes; i++) fputc('-', f);
  fputc('\n', f);
  fputs(line, f);
  for (int i = 0; i < dashes; i++) fputc('-', f);
  fputc('\n', f);
}

static void console_rep(FILE *f, const run_context *ctx, const bench_result *r, int i, int w) {
  const rep_result *rep = &r->reps[i];
  rep_metrics m;
  report_rep_metrics(ctx, r, rep, &m);
  char t[32], c[32], it[32], gb[32], pk[16], cp[16], fl[16], notes[256], names[160];
  report_format_time(m.real_ns, t, sizeof t);
  report_format_time(m.cpu_ns, c, sizeof c);
  snprintf(it, sizeof it, "%zu", rep->n);
  snprintf(gb, sizeof gb, "%.1f", m.gbps);
  format_pct(m.pct_peak, pk, sizeof pk);
  format_pct(m.pct_copy, cp, sizeof cp);
  if (r->flops > 0)
    format_si(m.flops_per_second, fl, sizeof fl);
  else
    snprintf(fl, sizeof fl, "-");
  size_t k = 0;
  notes[0] = '\0';
  if (r->reference) append(notes, sizeof notes, &k, "reference ");
  if (r->host_round_trip) append(notes, sizeof notes, &k, "host-round-trip ");
  append(notes, sizeof notes, &k, "noise=%.2f%% cv=%.1f%%", 100 * rep->noise, 100 * m.gpu.cv);
  if (rep->timed_out) append(notes, sizeof notes, &k, " TIMEOUT(noise>%.2g%%)", ctx->max_noise_pct);
  if (rep->discarded) append(notes, sizeof notes, &k, " discarded=%zu", rep->discarded);
  if (rep->clocks_valid) {
    append(notes, sizeof notes, &k, " sm=%u-%uMHz %uC", rep->sm_mhz_min, rep->sm_mhz_max, rep->temp_c_max);
    if (rep->throttle) {
      report_throttle_names(rep->throttle, names, sizeof names);
      append(notes, sizeof notes, &k, " throttle=%s", names);
    }
  }
  fprintf(f, ROW_FMT, w, r->name, t, c, it, gb, pk, cp, fl, "  ", notes);
}

static void console_aggregate(FILE *f, const bench_result *r, const agg_table *t, agg_kind k, int w) {
  char name[300], tm[32], c[32], it[32], gb[32], pk[16], cp[16], fl[16];
  snprintf(name, sizeof name, "%s_%s", r->name, agg_name(k));
  snprintf(it, sizeof it, "%d", r->nreps);
  if (k == AGG_CV) {
    /* Relative spread: every column as a percentage, as Google Benchmark prints cv. */
    snprintf(tm, sizeof tm, "%.2f %%", 100 * t->v[F_REAL][k]);
    snprintf(c, sizeof c, "%.2f %%", 100 * t->v[F_CPU][k]);
    snprintf(gb, sizeof gb, "%.2f%%", 100 * t->v[F_GBPS][k]);
    snprintf(pk, sizeof pk, "-");
    snprintf(cp, sizeof cp, "-");
    if (t->known[F_FLOPS])
      snprintf(fl, sizeof fl, "%.2f%%", 100 * t->v[F_FLOPS][k]);
    else
      snprintf(fl, sizeof fl, "-");
  } else {
    report_format_time(t->v[F_REAL][k], tm, sizeof tm);
    report_format_time(t->v[F_CPU][k], c, sizeof c);
    snprintf(gb, sizeof gb, "%.1f", t->v[F_GBPS][k]);
    format_pct(t->known[F_PEAK] ? t->v[F_PEAK][k] : -1, pk, sizeof pk);
    format_pct(t->known[F_COPY] ? t->v[F_COPY][k] : -1, cp, sizeof cp);
    if (t->known[F_FLOPS])
      format_si(t->v[F_FLOPS][k], fl, sizeof fl);
    else
      snprintf(fl, sizeof fl, "-");
  }
  fprintf(f, ROW_FMT, w, name, tm, c, it, gb, pk, cp, fl, r->reference ? "  " : "", r->reference ? "reference" : "");
}

void report_console_result(FILE *f, const run_context *ctx, const bench_result *r, int w, int aggregates_only) {
  if (r->failed) {
    fprintf(f, "%-*s ERROR OCCURRED: '%s'\n", w, r->name, r->error);
    return;
  }
  int aggs = has_aggregates(r);
  if (!(aggs && aggregates_only))
    for (int i = 0; i < r->nreps; i++) console_rep(f, ctx, r, i, w);
  if (aggs) {
    agg_table t;
    if (compute_aggregates(ctx, r, &t) == 0)
      for (int k = 0; k < AGG_COUNT; k++) console_aggregate(f, r, &t, (agg_kind)k, w);
  }
  fflush(f);
}

/* ---------- CSV ---------- */

static void csv_str(FILE *f, const char *s) {
  fputc('"', f);
  for (; *s; s++) {
    if (*s == '"') fputc('"', f);
    fputc(*s, f);
  }
  fputc('"', f);
}

static void csv_num(FILE *f, double v, int known) {
  if (known && isfinite(v))
    fprintf(f, ",%.10g", v);
  else
    fputc(',', f);
}

void report_csv_header(FILE *f) {
  fputs(
      "name,iterations,real_time,cpu_time,time_unit,bytes_per_second,items_per_second,label,error_occurred,"
      "error_message,\"GBps\",\"pct_of_peak\",\"pct_of_copy\",\"flops_per_second\",\"noise_pct\","
      "\"discarded_samples\"\n",
      f);
}

static void csv_row(FILE *f, const char *name, long long iters, const double *v, const int *known, int reference,
                    double noise_pct, long long discarded) {
  csv_str(f, name);
  fprintf(f, ",%lld", iters);
  csv_num(f, v[F_REAL], 1);
  csv_num(f, v[F_CPU], 1);
  fputs(",ns", f);
  csv_num(f, v[F_BPS], 1);
  fputs(",,", f);
  if (reference) csv_str(f, "reference");
  fputs(",,", f);
  csv_num(f, v[F_GBPS], 1);
  csv_num(f, v[F_PEAK], known[F_PEAK]);
  csv_num(f, v[F_COPY], known[F_COPY]);
  csv_num(f, v[F_FLOPS], known[F_FLOPS]);
  csv_num(f, noise_pct, noise_pct >= 0);
  if (discarded >= 0)
    fprintf(f, ",%lld\n", discarded);
  else
    fputs(",\n", f);
}

void report_csv_result(FILE *f, const run_context *ctx, const bench_result *r, int aggregates_only) {
  if (r->failed) {
    csv_str(f, r->name);
    fputs(",,,,,,,,true,", f);
    csv_str(f, r->error);
    fputs(",,,,,,\n", f);
    return;
  }
  int aggs = has_aggregates(r);
  if (!(aggs && aggregates_only)) {
    for (int i = 0; i < r->nreps; i++) {
      rep_metrics m;
      report_rep_metrics(ctx, r, &r->reps[i], &m);
      double v[F_COUNT];
      int known[F_COUNT];
      for (int fi = 0; fi < F_COUNT; fi++) {
        v[fi] = metric_field(&m, fi);
        known[fi] = 1;
      }
      known[F_PEAK] = m.pct_peak >= 0;
      known[F_COPY] = m.pct_copy >= 0;
      known[F_FLOPS] = r->flops > 0;
      csv_row(f, r->name, (long long)r->reps[i].n, v, known, r->reference, 100 * r->reps[i].noise,
              (long long)r->reps[i].discarded);
    }
  }
  if (aggs) {
    agg_table t;
    if (compute_aggregates(ctx, r, &t)) return;
    for (int k = 0; k < AGG_COUNT; k++) {
      char name[300];
      snprintf(name, sizeof name, "%s_%s", r->name, agg_name(k));
      double v[F_COUNT];
      for (int fi = 0; fi < F_COUNT; fi++) v[fi] = t.v[fi][k];
      csv_row(f, name, r->nreps, v, t.known, r->reference, -1, -1);
    }
  }
}
