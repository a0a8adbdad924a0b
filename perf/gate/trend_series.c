/* Trends of a history, decided once (trend_series.h). */
#define _GNU_SOURCE
#include "perf/gate/trend_series.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "perf/gate/baseline_store.h"
#include "perf/gate/compare.h"
#include "perf/gate/iso_date.h"
#include "perf/common/fail.h"

/* Rows of one series sort together, in file order. */
static const history_entry *sorting;

static int by_series(const void *a, const void *b) {
  const history_entry *x = &sorting[*(const size_t *)a], *y = &sorting[*(const size_t *)b];
  int c = strcmp(x->bench, y->bench);
  if (!c) c = strcmp(x->l2_flush, y->l2_flush);
  if (!c) c = strcmp(x->testbed, y->testbed);
  return c ? c : (x->line > y->line) - (x->line < y->line);
}

static int same_series(const history_entry *x, const history_entry *y) {
  return !strcmp(x->bench, y->bench) && !strcmp(x->l2_flush, y->l2_flush) && !strcmp(x->testbed, y->testbed);
}

static char *dup_or_die(const char *s) {
  char *d = strdup(s ? s : "");
  if (!d) {
    fprintf(stderr, "gate: out of memory\n");
    exit(2);
  }
  return d;
}

static void *grow_or_die(void *p, size_t n, size_t size) {
  void *q = realloc(p, (n ? n : 1) * size);
  if (!q) {
    fprintf(stderr, "gate: out of memory\n");
    exit(2);
  }
  return q;
}

/* What the baseline holds for the history: its figures, whose runs are each a testbed's and a flush method's. */
typedef struct {
  const gate_figures *fig;
} baseline_view;

/* A series' rows were measured on its testbed with its L2 flush: only the baseline's runs made so speak of them
 * (TESTBED, reference.h: a 2-GPU H200 host reads copy 2^20 29 % slower than a 1-GPU one, and a memset flush
 * differs from a read). Rows without a testbed (from before the column) are compared with every run, as the gate
 * compares a run without one. */
static int of_series(const gate_figures *f, size_t run, const trend_series *s) {
  return run < f->nruns && (!s->testbed[0] || !strcmp(f->runs[run].testbed, s->testbed)) &&
      !strcmp(f->runs[run].l2_flush, s->l2_flush);
}

/* Whether ISO date a is later than b ("" is earliest); by the text where either does not read as a date. */
static int later(const char *a, const char *b) {
  time_t ta, tb;
  if (!b[0]) return a[0] != 0;
  if (iso_date_time(a, &ta) == 0 && iso_date_time(b, &tb) == 0) return difftime(ta, tb) > 0;
  return strcmp(a, b) > 0;
}

/* The baseline's level of series s: the median of its benchmark's runs of the series (of_series) and the threshold
 * the gate allows against all of them, max(tolerance, k x the most a run exceeded that median). 0 when the
 * baseline has no such run. */
static int baseline_level(const baseline_view *v, const trend_series *s, const gate_policy *p, double *level,
                          double *threshold) {
  const gate_bench *b = v->fig ? find_bench(v->fig, s->bench) : NULL;
  if (!b) return 0;
  gate_bench mine = *b;
  mine.runs = grow_or_die(NULL, b->nruns, sizeof *mine.runs);
  mine.nruns = 0;
  for (size_t r = 0; r < b->nruns; r++)
    if (of_series(v->fig, b->runs[r].run, s)) mine.runs[mine.nruns++] = b->runs[r];
  int have = 0;
  if (mine.nruns > 0) {
    scaled sc = scale_bench(v->fig, &mine, METRIC_TIME, 0); /* the chart is drawn in time */
    have = sc.time > 0;
    if (have) {
      *level = sc.time;
      *threshold = threshold_for(p, s->bench, 0, sc.noise);
    }
    free(sc.contexts);
  }
  free(mine.runs);
  return have;
}

/* The date of the newest baseline run of the series (of_series) that measured a benchmark of its family: the
 * last bless that touched it; "" with none. */
static void blessed_date(const baseline_view *v, const trend_series *s, char *out, size_t len) {
  char family[256], other[256];
  family_name(s->bench, family, sizeof family);
  out[0] = '\0';
  if (!v->fig) return;
  for (size_t i = 0; i < v->fig->n; i++) {
    const gate_bench *b = &v->fig->b[i];
    family_name(b->name, other, sizeof other);
    if (strcmp(family, other)) continue;
    for (size_t r = 0; r < b->nruns; r++) {
      size_t run = b->runs[r].run;
      if (of_series(v->fig, run, s) && later(v->fig->runs[run].date, out))
        snprintf(out, len, "%s", v->fig->runs[run].date);
    }
  }
}

/* One series: rows[0..n) of the table, in file order. */
static void analyse_series(const history_entry *const *rows, size_t n, const baseline_view *v, const gate_policy *p,
                           const trend_params *params, size_t window, trend_series *s) {
  memset(s, 0, sizeof *s);
  const char *bench = rows[0]->bench;
  s->bench = dup_or_die(bench);
  s->l2_flush = dup_or_die(rows[0]->l2_flush);
  s->testbed = dup_or_die(rows[0]->testbed);
  double *x = grow_or_die(NULL, n, sizeof *x);
  s->rows = grow_or_die(NULL, n, sizeof *s->rows);
  s->nrows = n;
  for (size_t i = 0; i < n; i++) {
    x[i] = rows[i]->time_ns;
    int recorded = isfinite(rows[i]->threshold);
    /* A row from before the threshold column: the rule with the row's within-run spread (column noise) in place
     * of the baseline's noise the gate used, the nearest the file has to it. */
    double spread = isfinite(rows[i]->spread) ? rows[i]->spread : 0;
    s->rows[i] =
        (trend_row){rows[i]->line, recorded ? rows[i]->threshold : threshold_for(p, bench, 0, spread), recorded};
  }
  s->against_baseline = baseline_level(v, s, p, &s->reference_ns, &s->reference_threshold);
  if (!s->against_baseline) s->reference_ns = trend_median(x, n < window ? n : window);
  char blessed[64];
  blessed_date(v, s, blessed, sizeof blessed);
  size_t from = n > TREND_MAX_ROWS ? n - TREND_MAX_ROWS : 0;
  change_point *cp;
  size_t k = find_change_points(x + from, n - from, params, &cp);
  s->changes = grow_or_die(NULL, k, sizeof *s->changes);
  s->nchanges = k;
  for (size_t i = 0; i < k; i++) {
    size_t at = from + cp[i].index, end = i + 1 < k ? from + cp[i + 1].index : n;
    s->changes[i] =
        (trend_change){rows[at]->line, cp[i].step, cp[i].p, trend_median(x + at, end - at) / s->reference_ns - 1,
                       later(rows[at]->date, blessed)};
  }
  free(cp);
  s->crept = creep_beyond(x, n, s->against_baseline ? s->reference_ns : 0, window, tolerance_for(p, bench, 0),
                          s->reference_threshold, &s->creep_level, &s->creep_allowed);
  free(x);
}

int trends_of_history(const char *path, const history_table *t, const char *baseline_path, const gate_figures *base,
                      const gate_policy *p, const trend_params *params, size_t window, trend_history *out, char *err,
                      size_t errlen) {
  memset(out, 0, sizeof *out);
  if (!t->n) return fail(err, errlen, "%s: no rows", path);
  baseline_view v = {base};
  out->history = dup_or_die(path);
  out->gpu = dup_or_die(t->r[0].gpu);
  out->baseline = baseline_path ? dup_or_die(baseline_path) : NULL;
  out->window = window;
  size_t *order = grow_or_die(NULL, t->n, sizeof *order);
  for (size_t i = 0; i < t->n; i++) order[i] = i;
  sorting = t->r;
  qsort(order, t->n, sizeof *order, by_series);
  const history_entry **rows = grow_or_die(NULL, t->n, sizeof *rows);
  for (size_t i = 0; i < t->n;) {
    size_t n = 0, j = i;
    while (j < t->n && same_series(&t->r[order[j]], &t->r[order[i]])) rows[n++] = &t->r[order[j++]];
    out->s = grow_or_die(out->s, out->n + 1, sizeof *out->s);
    analyse_series(rows, n, &v, p, params, window, &out->s[out->n++]);
    i = j;
  }
  free(rows);
  free(order);
  return 0;
}

void trend_history_free(trend_history *h) {
  for (size_t i = 0; i < h->n; i++) {
    free(h->s[i].bench), free(h->s[i].l2_flush), free(h->s[i].testbed);
    free(h->s[i].rows), free(h->s[i].changes);
  }
  free(h->s), free(h->history), free(h->gpu), free(h->baseline);
  memset(h, 0, sizeof *h);
}
