/* The console reporter (reporter.h): Google Benchmark's aligned table, with the GPU's columns (GB/s,
 * % of peak and of the copy probe, FLOP/s) and notes (noise, clocks, throttling). The header
 * describes the run; the rows are streamed as results arrive. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "perf/runner/reporter.h"

void console_format_time(double ns, char *buf, size_t len) {
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

int console_name_width(const char *const *names, size_t n, int repetitions) {
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

static void console_header(FILE *f, const run_context *c, int w) {
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
  console_format_time(m.real_ns, t, sizeof t);
  console_format_time(m.cpu_ns, c, sizeof c);
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
    snprintf(tm, sizeof tm, "%.2f %%", 100 * t->v[MET_REAL][k]);
    snprintf(c, sizeof c, "%.2f %%", 100 * t->v[MET_CPU][k]);
    snprintf(gb, sizeof gb, "%.2f%%", 100 * t->v[MET_GBPS][k]);
    snprintf(pk, sizeof pk, "-");
    snprintf(cp, sizeof cp, "-");
    if (t->known[MET_FLOPS])
      snprintf(fl, sizeof fl, "%.2f%%", 100 * t->v[MET_FLOPS][k]);
    else
      snprintf(fl, sizeof fl, "-");
  } else {
    console_format_time(t->v[MET_REAL][k], tm, sizeof tm);
    console_format_time(t->v[MET_CPU][k], c, sizeof c);
    snprintf(gb, sizeof gb, "%.1f", t->v[MET_GBPS][k]);
    format_pct(t->known[MET_PEAK] ? t->v[MET_PEAK][k] : -1, pk, sizeof pk);
    format_pct(t->known[MET_COPY] ? t->v[MET_COPY][k] : -1, cp, sizeof cp);
    if (t->known[MET_FLOPS])
      format_si(t->v[MET_FLOPS][k], fl, sizeof fl);
    else
      snprintf(fl, sizeof fl, "-");
  }
  fprintf(f, ROW_FMT, w, name, tm, c, it, gb, pk, cp, fl, r->reference ? "  " : "", r->reference ? "reference" : "");
}

static void console_result(FILE *f, const run_context *ctx, const bench_result *r, int w, int aggregates_only) {
  if (r->failed) {
    fprintf(f, "%-*s ERROR OCCURRED: '%s'\n", w, r->name, r->error);
    return;
  }
  int aggs = report_has_aggregates(r);
  if (!(aggs && aggregates_only))
    for (int i = 0; i < r->nreps; i++) console_rep(f, ctx, r, i, w);
  if (aggs) {
    agg_table t;
    if (report_aggregates(ctx, r, &t) == 0)
      for (int k = 0; k < AGG_COUNT; k++) console_aggregate(f, r, &t, (agg_kind)k, w);
  }
  fflush(f);
}

static int console_begin(reporter *self, const run_context *ctx) {
  self->ctx = ctx;
  console_header(self->out, ctx, self->name_width);
  return 0;
}

static int console_row(reporter *self, const bench_result *r) {
  console_result(self->out, self->ctx, r, self->name_width, self->aggregates_only);
  return 0;
}

static int console_end(reporter *self) { return fflush(self->out) == 0 && !ferror(self->out) ? 0 : -1; }

void console_reporter(reporter *r, FILE *out, int aggregates_only, int name_width) {
  *r = (reporter){.begin = console_begin,
                  .result = console_row,
                  .end = console_end,
                  .out = out,
                  .aggregates_only = aggregates_only,
                  .name_width = name_width};
}
