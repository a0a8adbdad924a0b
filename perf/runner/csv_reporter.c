/* The CSV reporter (reporter.h): Google Benchmark's columns, then the GPU's (GBps, pct_of_peak,
 * pct_of_copy, flops_per_second, noise_pct, discarded_samples); a row per repetition and per
 * aggregate, streamed as results arrive. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "perf/runner/reporter.h"

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

static void csv_header(FILE *f) {
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
  csv_num(f, v[MET_REAL], 1);
  csv_num(f, v[MET_CPU], 1);
  fputs(",ns", f);
  csv_num(f, v[MET_BPS], 1);
  fputs(",,", f);
  if (reference) csv_str(f, "reference");
  fputs(",,", f);
  csv_num(f, v[MET_GBPS], 1);
  csv_num(f, v[MET_PEAK], known[MET_PEAK]);
  csv_num(f, v[MET_COPY], known[MET_COPY]);
  csv_num(f, v[MET_FLOPS], known[MET_FLOPS]);
  csv_num(f, noise_pct, noise_pct >= 0);
  if (discarded >= 0)
    fprintf(f, ",%lld\n", discarded);
  else
    fputs(",\n", f);
}

static void csv_result(FILE *f, const run_context *ctx, const bench_result *r, int aggregates_only) {
  if (r->failed) {
    csv_str(f, r->name);
    fputs(",,,,,,,,true,", f);
    csv_str(f, r->error);
    fputs(",,,,,,\n", f);
    return;
  }
  int aggs = report_has_aggregates(r);
  if (!(aggs && aggregates_only)) {
    for (int i = 0; i < r->nreps; i++) {
      rep_metrics m;
      report_rep_metrics(ctx, r, &r->reps[i], &m);
      double v[MET_COUNT];
      int known[MET_COUNT];
      for (int fi = 0; fi < MET_COUNT; fi++) {
        v[fi] = report_metric_value(&m, (report_metric)fi);
        known[fi] = 1;
      }
      known[MET_PEAK] = m.pct_peak >= 0;
      known[MET_COPY] = m.pct_copy >= 0;
      known[MET_FLOPS] = r->flops > 0;
      csv_row(f, r->name, (long long)r->reps[i].n, v, known, r->reference, 100 * r->reps[i].noise,
              (long long)r->reps[i].discarded);
    }
  }
  if (aggs) {
    agg_table t;
    if (report_aggregates(ctx, r, &t)) return;
    for (int k = 0; k < AGG_COUNT; k++) {
      char name[300];
      snprintf(name, sizeof name, "%s_%s", r->name, agg_name(k));
      double v[MET_COUNT];
      for (int fi = 0; fi < MET_COUNT; fi++) v[fi] = t.v[fi][k];
      csv_row(f, name, r->nreps, v, t.known, r->reference, -1, -1);
    }
  }
}

static int csv_begin(reporter *self, const run_context *ctx) {
  self->ctx = ctx;
  csv_header(self->out);
  return 0;
}

static int csv_rows(reporter *self, const bench_result *r) {
  csv_result(self->out, self->ctx, r, self->aggregates_only);
  return 0;
}

static int csv_end(reporter *self) { return fflush(self->out) == 0 && !ferror(self->out) ? 0 : -1; }

void csv_reporter(reporter *r, FILE *out, int aggregates_only) {
  *r = (reporter){
      .begin = csv_begin, .result = csv_rows, .end = csv_end, .out = out, .aggregates_only = aggregates_only};
}
