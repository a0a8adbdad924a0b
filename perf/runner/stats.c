#include "perf/runner/stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static double median_sorted(const double *s, size_t n) { return n % 2 ? s[n / 2] : 0.5 * (s[n / 2 - 1] + s[n / 2]); }

int stats_summarize(const double *x, size_t n, stats_summary *out) {
  memset(out, 0, sizeof *out);
  if (n == 0) return -1;
  double *s = malloc(n * sizeof *s);
  if (!s) return -1;
  memcpy(s, x, n * sizeof *s);
  qsort(s, n, sizeof *s, cmp_double);
  stats_running r = {0};
  for (size_t i = 0; i < n; i++) stats_running_push(&r, s[i]);
  out->n = n;
  out->median = median_sorted(s, n);
  out->mean = r.mean;
  out->stddev = stats_running_stddev(&r);
  out->cv = r.mean != 0 ? out->stddev / fabs(r.mean) : 0;
  out->min = s[0];
  out->max = s[n - 1];
  free(s);
  return 0;
}

double stats_median(const double *x, size_t n) {
  stats_summary s;
  return stats_summarize(x, n, &s) == 0 ? s.median : 0;
}

void stats_running_push(stats_running *r, double x) {
  r->n++;
  r->sum += x;
  double d = x - r->mean;
  r->mean += d / (double)r->n;
  r->m2 += d * (x - r->mean);
}

double stats_running_stddev(const stats_running *r) {
  if (r->n < 2) return 0;
  double var = r->m2 / (double)(r->n - 1);
  return var > 0 ? sqrt(var) : 0;
}

double stats_running_rel_stderr(const stats_running *r) {
  if (r->n < 2 || r->mean <= 0) return INFINITY;
  return stats_running_stddev(r) / (r->mean * sqrt((double)r->n));
}
