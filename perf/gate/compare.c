#include "perf/gate/compare.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "perf/mann_whitney.h"

gate_policy default_policy(void) {
  /* min_delta 3 us: across two H100 machines a host-synchronising 31 us benchmark
   * (dot/tree_host_finish, N = 2^20) moved by up to 2.3 us (+7.3%) with no code change. */
  gate_policy p = {.tolerance = 0.03, .k_noise = 3.0, .alpha = 0.01, .min_delta_ns = 3000.0, .metric = METRIC_TIME,
                   .nfam = 0};
  return p;
}

int add_family_tolerance(gate_policy *p, const char *spec, char *err, size_t errlen) {
  const char *eq = strchr(spec, '=');
  char *end = NULL;
  double t = eq ? strtod(eq + 1, &end) : NAN;
  if (!eq || eq == spec || (size_t)(eq - spec) >= sizeof p->fam[0].family || !end || *end || !(t > 0 && t < 1)) {
    snprintf(err, errlen, "bad family tolerance '%s': want FAMILY=FRACTION with 0 < FRACTION < 1, e.g. reduce=0.07",
             spec);
    return 1;
  }
  if (p->nfam == GATE_MAX_FAMILY_TOLERANCES) {
    snprintf(err, errlen, "too many family tolerances (at most %d)", GATE_MAX_FAMILY_TOLERANCES);
    return 1;
  }
  family_tolerance *f = &p->fam[p->nfam++];
  memcpy(f->family, spec, (size_t)(eq - spec));
  f->family[eq - spec] = '\0';
  f->tolerance = t;
  return 0;
}

double tolerance_for(const gate_policy *p, const char *bench_name) {
  size_t len = strcspn(bench_name, "/");
  for (size_t i = 0; i < p->nfam; i++)
    if (strlen(p->fam[i].family) == len && strncmp(p->fam[i].family, bench_name, len) == 0) return p->fam[i].tolerance;
  return p->tolerance;
}

const char *verdict_name(verdict v) {
  switch (v) {
    case VERDICT_FASTER: return "faster";
    case VERDICT_SAME: return "same";
    case VERDICT_SLOWER: return "slower";
    case VERDICT_NEW: return "new";
    case VERDICT_MISSING: return "missing";
  }
  return "?";
}

static int by_value(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static double median(double *v, size_t n) {
  if (n == 0) return NAN;
  qsort(v, n, sizeof *v, by_value);
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

static double median_copy(const gate_figures *f) {
  double *v = malloc((f->nruns + 1) * sizeof *v);
  size_t n = 0;
  for (size_t i = 0; i < f->nruns; i++)
    if (f->runs[i].copy_bytes_per_second > 0) v[n++] = f->runs[i].copy_bytes_per_second;
  double m = n ? median(v, n) : 0;
  free(v);
  return m;
}

/* A benchmark's measures in the chosen metric: each run's median and samples,
 * scaled by that run's copy speed over `copy_ref` for METRIC_COPY_RATIO. */
typedef struct {
  double median;  /* median of the run medians */
  double noise;   /* max relative deviation of a run median from that median */
  double *samples;
  size_t nsamples;
} scaled;

static scaled scale_bench(const gate_figures *f, const gate_bench *b, gate_metric metric, double copy_ref) {
  scaled s = {0};
  size_t total = 0;
  for (size_t r = 0; r < b->nruns; r++) total += b->runs[r].nsamples;
  s.samples = malloc((total + 1) * sizeof *s.samples);
  double *meds = malloc((b->nruns + 1) * sizeof *meds);
  for (size_t r = 0; r < b->nruns; r++) {
    size_t run = b->runs[r].run;
    double copy = run < f->nruns ? f->runs[run].copy_bytes_per_second : 0;
    double k = (metric == METRIC_COPY_RATIO && copy > 0 && copy_ref > 0) ? copy / copy_ref : 1.0;
    meds[r] = b->runs[r].median_ns * k;
    for (size_t i = 0; i < b->runs[r].nsamples; i++) s.samples[s.nsamples++] = b->runs[r].samples_ns[i] * k;
  }
  double *sorted = malloc((b->nruns + 1) * sizeof *sorted);
  memcpy(sorted, meds, b->nruns * sizeof *meds);
  s.median = median(sorted, b->nruns);
  for (size_t r = 0; r < b->nruns; r++) {
    double dev = fabs(meds[r] - s.median) / s.median;
    if (dev > s.noise) s.noise = dev;
  }
  free(sorted);
  free(meds);
  return s;
}

static double copy_fraction(const gate_figures *f, const gate_bench *b) {
  double copy = median_copy(f);
  return copy > 0 ? b->bytes_per_second / copy : 0;
}

size_t compare_figures(const gate_figures *base, const gate_figures *run, const gate_policy *p, comparison **out) {
  comparison *c = calloc(base->n + run->n + 1, sizeof *c);
  size_t n = 0;
  double copy_ref = median_copy(base);
  for (size_t i = 0; i < base->n; i++) {
    const gate_bench *bb = &base->b[i];
    const gate_bench *rb = find_bench(run, bb->name);
    comparison *x = &c[n++];
    x->name = bb->name;
    scaled bs = scale_bench(base, bb, p->metric, copy_ref);
    x->base_ns = bs.median;
    x->noise = bs.noise;
    x->base_gbps = bb->bytes_per_second / 1e9;
    x->base_copy_frac = copy_fraction(base, bb);
    x->threshold = fmax(tolerance_for(p, bb->name), p->k_noise * bs.noise);
    if (!rb) {
      x->v = VERDICT_MISSING;
      free(bs.samples);
      continue;
    }
    scaled rs = scale_bench(run, rb, p->metric, copy_ref);
    x->run_ns = rs.median;
    x->run_gbps = rb->bytes_per_second / 1e9;
    x->run_copy_frac = copy_fraction(run, rb);
    x->delta = rs.median / bs.median - 1.0;
    x->p_slower = mann_whitney_p_greater(rs.samples, rs.nsamples, bs.samples, bs.nsamples);
    x->p_faster = mann_whitney_p_greater(bs.samples, bs.nsamples, rs.samples, rs.nsamples);
    double change_ns = rs.median - bs.median;
    if (x->delta > x->threshold && x->p_slower < p->alpha && change_ns > p->min_delta_ns)
      x->v = VERDICT_SLOWER;
    else if (x->delta < -x->threshold && x->p_faster < p->alpha && -change_ns > p->min_delta_ns)
      x->v = VERDICT_FASTER;
    else
      x->v = VERDICT_SAME;
    free(bs.samples);
    free(rs.samples);
  }
  for (size_t i = 0; i < run->n; i++) {
    if (find_bench(base, run->b[i].name)) continue;
    comparison *x = &c[n++];
    x->name = run->b[i].name;
    x->v = VERDICT_NEW;
    scaled rs = scale_bench(run, &run->b[i], p->metric, copy_ref > 0 ? copy_ref : median_copy(run));
    x->run_ns = rs.median;
    x->run_gbps = run->b[i].bytes_per_second / 1e9;
    x->run_copy_frac = copy_fraction(run, &run->b[i]);
    free(rs.samples);
  }
  *out = c;
  return n;
}
