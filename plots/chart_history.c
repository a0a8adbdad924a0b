/* The over-time chart (render_charts in charts.c calls it): each benchmark's history against its reference level, the
 * thresholds it was judged with as a band, its change points and creep, all as `gate trends` decided them
 * (trends.json, trend_series.h): this file draws and computes none of them. */
#define _GNU_SOURCE
#include "plots/chart_history.h"
#include "plots/gnuplot_files.h"

#include "perf/gate/trend_series.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---------- over time ---------- */

typedef struct {
  const char *date, *commit;
} run_key;

static int chart_history_rows(const render_env *env, gpu_view *g, family_view *f, char *err, size_t errlen);

/* Rows taken with another L2 flush than the baseline's (with no baseline: than the newest
 * row's) measure something else: they would sit off the band for no change of the code. */
static const char *history_method(const gpu_view *g, const family_view *f) {
  if (g->base) {
    /* A baseline holds families blessed at different times: take this family's runs. */
    const gate_figures *fig = &g->base->fig;
    size_t len = strlen(f->name);
    for (size_t i = 0; i < fig->n; i++) {
      const gate_bench *b = &fig->b[i];
      if (strncmp(b->name, f->name, len) == 0 && b->name[len] == '/' && b->nruns > 0 && b->runs[0].run < fig->nruns)
        return fig->runs[b->runs[0].run].l2_flush;
    }
  }
  return f->nh ? f->h[f->nh - 1]->l2_flush : "";
}

int chart_history(const render_env *env, gpu_view *g, family_view *f, char *err, size_t errlen) {
  const char *method = history_method(g, f);
  size_t other_method = 0;
  const history_row **rows = calloc(f->nh + 1, sizeof *rows);
  size_t nrows = 0;
  for (size_t i = 0; i < f->nh; i++) {
    if (strcmp(f->h[i]->l2_flush, method) == 0)
      rows[nrows++] = f->h[i];
    else
      other_method++;
  }
  if (other_method)
    chart_note(f,
               "%zu history rows measured with another L2 flush than the '%s' one of %s left out of the over-time "
               "chart: they do not compare.",
               other_method, method, g->base ? "the baseline" : "the newest run");
  if (!nrows) {
    free(rows);
    return 0;
  }
  /* From here on the chart sees only the rows that compare. */
  const history_row **all = f->h;
  size_t nall = f->nh;
  f->h = rows;
  f->nh = nrows;
  int rc = chart_history_rows(env, g, f, err, errlen);
  f->h = all;
  f->nh = nall;
  free(rows);
  return rc;
}

/* The history chart draws each benchmark's time as its change against its reference level, in %. */
#define MAX_DRAWN 300      /* points drawn per benchmark; more rows are thinned (the data files keep them all) */
#define MAX_LABELS 10      /* labelled runs on the x axis (a commit and date are ~80 px wide) */
#define MAX_MARK_LABELS 12 /* change points of a panel labelled with their step (more: marked only) */

/* The rows of the family being charted, for the sort comparators. */
static const history_row *const *sorting;

static int by_run(const void *a, const void *b) {
  size_t i = *(const size_t *)a, j = *(const size_t *)b;
  int c = strcmp(sorting[i]->date, sorting[j]->date);
  if (!c) c = strcmp(sorting[i]->commit, sorting[j]->commit);
  return c ? c : (i > j) - (i < j);
}

/* The runs in the order the history recorded them (it is append-only): runs[r] for r from 0;
 * xof[i] is row i's run, from 1. Sorting, not searching: linear in rows up to a log factor. */
static size_t history_runs(const family_view *f, run_key *runs, int *xof) {
  size_t n = f->nh, *idx = malloc((n + 1) * sizeof *idx), *first = malloc((n + 1) * sizeof *first);
  size_t *group = malloc((n + 1) * sizeof *group), ngroups = 0;
  for (size_t i = 0; i < n; i++) idx[i] = i;
  sorting = f->h;
  qsort(idx, n, sizeof *idx, by_run);
  for (size_t k = 0; k < n; k++) {
    const history_row *h = f->h[idx[k]], *prev = k ? f->h[idx[k - 1]] : NULL;
    if (!prev || strcmp(h->date, prev->date) || strcmp(h->commit, prev->commit)) first[ngroups++] = idx[k];
    group[idx[k]] = ngroups - 1;
  }
  /* A run's place is that of its first row: mark each first row, then number them in file order. */
  int *rank = calloc(ngroups + 1, sizeof *rank);
  char *is_first = calloc(n + 1, 1);
  for (size_t g = 0; g < ngroups; g++) is_first[first[g]] = 1;
  size_t r = 0;
  for (size_t i = 0; i < n; i++)
    if (is_first[i]) {
      rank[group[i]] = (int)++r;
      runs[r - 1] = (run_key){f->h[i]->date, f->h[i]->commit};
    }
  for (size_t i = 0; i < n; i++) xof[i] = rank[group[i]];
  free(idx), free(first), free(group), free(rank), free(is_first);
  return ngroups;
}

/* The panels: the problem sizes, smallest first. Returns how many. */
static size_t history_panels(const family_view *f, const bench_name **panel) {
  size_t npanels = 0;
  for (size_t i = 0; i < f->nh; i++) {
    size_t p = 0;
    while (p < npanels && strcmp(panel[p]->params, f->h[i]->id.params)) p++;
    if (p < npanels) continue;
    while (p > 0 && panel[p - 1]->size > f->h[i]->id.size) {
      panel[p] = panel[p - 1];
      p--;
    }
    panel[p] = &f->h[i]->id;
    npanels++;
  }
  return npanels;
}

/* One benchmark's rows (one variant at one size), in file order. */
typedef struct {
  const history_row **r;
  const int *x;
  size_t n;
  size_t variant;         /* index into f->v */
  const trend_series *tr; /* what the gate decided: its reference level, each row's threshold, change points, creep */
  const trend_row **thr;  /* per row: its entry in tr->rows */
} series;

typedef struct {
  FILE *series, *band, *marks;
  size_t slower, computed_band, thinned, changes, no_base;
  double lo, hi;  /* the panel's y range so far (%) */
  double *deltas; /* the panel's deltas, for its y range */
  size_t ndeltas;
  double *band_lo, *band_hi; /* per run (from 1): the tightest and widest threshold of the panel, % */
  size_t nruns;
} history_out;

/* The panel's band as steps: a row where the thresholds change (the old ones and the new ones
 * at the same run) and at the last run; runs with no row in the panel carry the last ones. */
static void panel_band(history_out *o) {
  double lo = NAN, hi = NAN;
  size_t last = 0;
  for (size_t x = 1; x <= o->nruns; x++) {
    if (isnan(o->band_lo[x])) continue;
    if (o->band_lo[x] != lo || o->band_hi[x] != hi) {
      if (!isnan(lo)) fprintf(o->band, "%zu %.6g %.6g\n", x, lo, hi);
      lo = o->band_lo[x], hi = o->band_hi[x];
      fprintf(o->band, "%zu %.6g %.6g\n", x, lo, hi);
    }
    last = x;
  }
  if (isnan(lo))
    fprintf(o->band, "1 NaN NaN\n"); /* an index needs a row; NaN draws nothing */
  else
    fprintf(o->band, "%zu %.6g %.6g\n", last, lo, hi);
  for (size_t x = 0; x <= o->nruns; x++) o->band_lo[x] = o->band_hi[x] = NAN;
}

/* The rows drawn: all of them up to MAX_DRAWN, else per bucket of runs its lowest and highest
 * delta (spikes stay visible) and every row the gate called slower. keep[i] says which. */
static void thin(const double *delta, const history_row *const *r, size_t n, char *keep) {
  if (n <= MAX_DRAWN) {
    memset(keep, 1, n);
    return;
  }
  memset(keep, 0, n);
  size_t buckets = MAX_DRAWN / 2;
  for (size_t b = 0; b < buckets; b++) {
    size_t from = b * n / buckets, to = (b + 1) * n / buckets, lo = from, hi = from;
    for (size_t i = from; i < to; i++) {
      if (delta[i] < delta[lo]) lo = i;
      if (delta[i] > delta[hi]) hi = i;
      if (!strcmp(r[i]->verdict, "slower")) keep[i] = 1;
    }
    keep[lo] = keep[hi] = 1;
  }
}

/* One benchmark: its line, its band, its change points and creep. */
static void history_series(family_view *f, const series *s, int first_in_panel, history_out *o) {
  double *delta = malloc(s->n * sizeof *delta);
  char *keep = malloc(s->n);
  for (size_t i = 0; i < s->n; i++) delta[i] = 100 * (s->r[i]->time_ns / s->tr->reference_ns - 1);
  thin(delta, s->r, s->n, keep);
  if (!first_in_panel) fputc('\n', o->series); /* a blank line: a new line in the chart */
  for (size_t i = 0; i < s->n; i++) {
    int slower = !strcmp(s->r[i]->verdict, "slower");
    double thr = s->thr[i]->threshold;
    o->slower += slower;
    o->computed_band += !s->thr[i]->recorded;
    o->hi = fmax(o->hi, 100 * thr);
    o->lo = fmin(o->lo, -100 * thr);
    o->deltas[o->ndeltas++] = delta[i];
    if (!keep[i]) {
      o->thinned++;
      continue;
    }
    fprintf(o->series, "%d %.6g %d %zu\n", s->x[i], delta[i], slower, s->variant + 1);
  }
  for (size_t i = 0; i < s->n; i++) { /* the panel's band: its tightest and widest threshold per run */
    double thr = 100 * s->thr[i]->threshold;
    o->band_lo[s->x[i]] = isnan(o->band_lo[s->x[i]]) ? thr : fmin(o->band_lo[s->x[i]], thr);
    o->band_hi[s->x[i]] = isnan(o->band_hi[s->x[i]]) ? thr : fmax(o->band_hi[s->x[i]], thr);
  }
  /* Change points, each marked at the level after it. */
  for (size_t i = 0; i < s->tr->nchanges; i++) {
    const trend_change *c = &s->tr->changes[i];
    size_t at = 1;
    while (at < s->n && s->r[at]->line != c->line) at++;
    if (at == s->n) continue; /* not reached: trends_read and attach_trends (model.c) check each line */
    f->cp = realloc(f->cp, (f->ncp + 1) * sizeof *f->cp);
    f->cp[f->ncp++] = (trend_mark){s->r[at - 1], s->r[at], c->step, c->p, c->since_bless};
    fprintf(o->marks, "%d %.6g %zu %d \"%+.1f%%\"\n", s->x[at], 100 * c->level, s->variant + 1, c->step > 0,
            100 * c->step);
  }
  o->changes += s->tr->nchanges;
  if (s->tr->crept) {
    f->creep = realloc(f->creep, (f->ncreep + 1) * sizeof *f->creep);
    f->creep[f->ncreep++] = (creep_mark){s->r[s->n - 1], s->tr->creep_level, s->tr->creep_allowed, s->tr->nchanges,
                                         s->tr->against_baseline};
  }
  free(delta);
  free(keep);
}

/* Every run gets a place; at most MAX_LABELS get a tick, labelled with commit and date. */
static void history_labels(FILE *labels, const run_key *runs, size_t nruns) {
  size_t step = (nruns + MAX_LABELS - 1) / MAX_LABELS;
  for (size_t r = 0; r < nruns; r += step) {
    char commit[16], date[16];
    snprintf(commit, sizeof commit, "%.7s", runs[r].commit);
    snprintf(date, sizeof date, "%.10s", runs[r].date);
    fprintf(labels, "%zu ", r + 1);
    chart_data_str(labels, commit);
    fputc(' ', labels);
    chart_data_str(labels, date);
    fputc('\n', labels);
  }
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* The panel's y range: its bands, and its deltas but for the farthest 1 % on either side (a
 * kernel that ran 40 % slower once would flatten every other line); those are cut at the edge. */
static void panel_range(history_out *o, char *ymins, char *ymaxs, size_t len) {
  double lo = o->lo, hi = o->hi;
  if (o->ndeltas) {
    qsort(o->deltas, o->ndeltas, sizeof *o->deltas, cmp_double);
    lo = fmin(lo, o->deltas[o->ndeltas / 100]);
    hi = fmax(hi, o->deltas[o->ndeltas - 1 - o->ndeltas / 100]);
  }
  double pad = 0.08 * (hi - lo);
  size_t a = strlen(ymins), b = strlen(ymaxs);
  snprintf(ymins + a, len - a, "%.4g ", lo - pad);
  snprintf(ymaxs + b, len - b, "%.4g ", hi + pad);
  o->lo = o->hi = 0;
  o->ndeltas = 0;
}

/* Draws the over-time chart from the data files written by chart_history_rows. */
static int history_chart(const render_env *env, const gpu_view *g, family_view *f, const char *stem,
                         const char *const paths[4], const char *panels, const char *ymins, const char *ymaxs,
                         const char *nmarks, size_t npanels, size_t nruns, size_t longest, const history_out *o,
                         char *err, size_t errlen) {
  chart *c = &f->charts[f->ncharts];
  char caption[sizeof c->caption]; /* built apart: the family name lives in the same struct */
  c->kind = "history";
  c->width = 1000;
  /* The key: the variants and 4 more entries, in 2 columns of 20 px rows. */
  int header = 30 + 18 * (int)((f->nv + 4 + 1) / 2), panel_px = 230, gap = 40, footer = 80;
  c->height = header + (int)npanels * (panel_px + gap) + footer;
  char title[600], variants[2048] = "", dashed[256] = "";
  for (size_t k = 0; k < f->nv; k++) {
    size_t a = strlen(variants), b = strlen(dashed);
    snprintf(variants + a, sizeof variants - a, "\"%s\" ", f->v[k].name);
    snprintf(dashed + b, sizeof dashed - b, "%d ", f->v[k].library_reference);
  }
  snprintf(title, sizeof title, "%s over time on %s (%zu run%s): time against the %s, %%", f->name, g->name, nruns,
           nruns == 1 ? "" : "s", g->trends->baseline && o->no_base == 0 ? "baseline" : "reference");
  vars v = {.len = 0};
  chart_var_str(&v, "title", title);
  chart_var_str(&v, "ylabel", "time vs baseline (%, + is slower)");
  chart_var_str(&v, "seriesfile", paths[0]);
  chart_var_str(&v, "bandfile", paths[1]);
  chart_var_str(&v, "labelfile", paths[2]);
  chart_var_str(&v, "markfile", paths[3]);
  chart_var_num(&v, "npanels", (double)npanels);
  chart_var_num(&v, "nruns", (double)nruns);
  chart_var_num(&v, "withpoints", longest <= 60);
  chart_var_str(&v, "panels", panels);
  chart_var_str(&v, "ymins", ymins);
  chart_var_str(&v, "ymaxs", ymaxs);
  chart_var_str(&v, "nmarks", nmarks);
  chart_var_num(&v, "maxmarklabels", MAX_MARK_LABELS);
  chart_var_str(&v, "variants", variants);
  chart_var_str(&v, "dashed", dashed);
  chart_var_num(&v, "header", header);
  chart_var_num(&v, "panel", panel_px);
  chart_var_num(&v, "gap", gap);
  chart_var_num(&v, "footer", footer);
  snprintf(caption, sizeof caption,
           "Time of each variant of %s against its %s, in %% (up: slower), over the %zu run%s in the history, one "
           "panel per problem size; x: the runs in the order recorded, labelled with commit and date. Grey bands: "
           "the thresholds the rows were judged with (%s), dark up to the tightest of the panel's variants, light "
           "up to the widest. Triangles: change points (E-Divisive means over each "
           "benchmark's newest %d rows, by gate trends). Circled red: %zu row%s the gate called slower.%s",
           f->name,
           o->no_base ? "baseline (or, where the baseline lacks it, the median of its first rows)" : "baseline", nruns,
           nruns == 1 ? "" : "s",
           o->computed_band ? "where the history records none, max(tolerance, k × the row's noise), by gate trends"
                            : "as recorded",
           TREND_MAX_ROWS, o->slower, o->slower == 1 ? "" : "s",
           o->thinned ? " Drawn thinned: per stretch of runs, each line's lowest and highest point (all rows are in "
                        "the data files)."
                      : "");
  snprintf(c->caption, sizeof c->caption, "%s", caption);
  if (chart_run_gnuplot(env, "history.gp", &v, stem, c, err, errlen)) return RENDER_FAILED;
  f->ncharts++;
  return 0;
}

static const bench_name *const *sorting_panel;
static size_t sorting_npanels;

static size_t panel_of(const history_row *h) {
  size_t p = 0;
  while (p + 1 < sorting_npanels && strcmp(sorting_panel[p]->params, h->id.params)) p++;
  return p;
}

/* Rows of one benchmark (and testbed) together: by panel, variant, testbed, then file order.
 * keys: (panel x nv + variant) x ntestbeds + testbed. */
static const size_t *sorting_key;

static int by_series(const void *a, const void *b) {
  size_t i = *(const size_t *)a, j = *(const size_t *)b;
  if (sorting_key[i] != sorting_key[j]) return sorting_key[i] < sorting_key[j] ? -1 : 1;
  return (i > j) - (i < j);
}

/* Each benchmark's rows together: idx[] lists the rows by key[row] (panel, variant, testbed),
 * then file order. Testbeds (where the history records them) are told apart: each is a series of
 * its own. Returns how many testbeds. */
static size_t series_order(const family_view *f, const bench_name **panel, size_t npanels, size_t *key, size_t *idx) {
  size_t n = f->nh, ntb = 0, *tb = malloc((n + 1) * sizeof *tb);
  const char **testbed = malloc((n + 1) * sizeof *testbed);
  for (size_t i = 0; i < n; i++) {
    size_t t = 0;
    while (t < ntb && strcmp(testbed[t], f->h[i]->testbed)) t++;
    if (t == ntb) testbed[ntb++] = f->h[i]->testbed;
    tb[i] = t;
  }
  sorting_panel = panel;
  sorting_npanels = npanels;
  for (size_t i = 0; i < n; i++) {
    idx[i] = i;
    key[i] = (panel_of(f->h[i]) * f->nv + (size_t)(variant_index(f, f->h[i]->id.variant) - 1)) * ntb + tb[i];
  }
  sorting_key = key;
  qsort(idx, n, sizeof *idx, by_series);
  free(testbed);
  free(tb);
  return ntb ? ntb : 1;
}

/* What the gate decided of a series (trends.json): its trend series and each row's entry (build_model checked
 * that every row has one). */
static void series_trends(const gpu_view *g, series *s) {
  for (size_t i = 0; i < s->n; i++) s->thr[i] = trend_row_of(g->trends, s->r[i], &s->tr);
}

static int open_history_files(const render_env *env, const char *stem, FILE **f, char paths[4][PATH_LEN], char *err,
                              size_t errlen) {
  static const char *kWhat[4] = {"series", "band", "labels", "marks"};
  for (int i = 0; i < 4; i++) {
    f[i] = chart_open_data(env, stem, kWhat[i], paths[i], PATH_LEN, err, errlen);
    if (!f[i]) {
      while (i-- > 0) fclose(f[i]);
      return RENDER_FAILED;
    }
  }
  return 0;
}

static int chart_history_rows(const render_env *env, gpu_view *g, family_view *f, char *err, size_t errlen) {
  size_t n = f->nh;
  run_key *runs = calloc(n + 1, sizeof *runs);
  int *xof = calloc(n + 1, sizeof *xof);
  const bench_name **panel = calloc(n + 1, sizeof *panel);
  size_t nruns = history_runs(f, runs, xof), npanels = history_panels(f, panel);
  size_t *key = malloc((n + 1) * sizeof *key), *idx = malloc((n + 1) * sizeof *idx);
  size_t ntb = series_order(f, panel, npanels, key, idx);

  char stem[600], paths[4][PATH_LEN];
  chart_stem_of(g, f, "history", stem, sizeof stem);
  FILE *files[4];
  if (open_history_files(env, stem, files, paths, err, errlen)) {
    free(runs), free(xof), free(panel), free(key), free(idx);
    return RENDER_FAILED;
  }
  history_out o = {.series = files[0],
                   .band = files[1],
                   .marks = files[3],
                   .deltas = malloc((n + 1) * sizeof(double)),
                   .band_lo = malloc((nruns + 1) * sizeof(double)),
                   .band_hi = malloc((nruns + 1) * sizeof(double)),
                   .nruns = nruns};
  for (size_t r = 0; r <= nruns; r++) o.band_lo[r] = o.band_hi[r] = NAN;
  const history_row **rows = malloc((n + 1) * sizeof *rows);
  int *x = malloc((n + 1) * sizeof *x);
  const trend_row **thr = malloc((n + 1) * sizeof *thr);
  char panels[4096] = "", ymins[1024] = "", ymaxs[1024] = "", nmarks[1024] = "";
  size_t longest = 0, i = 0;
  for (size_t p = 0; p < npanels; p++) {
    if (p) fputs("\n\n", o.series), fputs("\n\n", o.band), fputs("\n\n", o.marks);
    size_t a = strlen(panels);
    snprintf(panels + a, sizeof panels - a, "\"%s%s%s\" ", panel[p]->size_axis, panel[p]->size_axis[0] ? " = " : "",
             panel[p]->size_label);
    size_t nseries = 0, marks_before = o.changes;
    while (i < n && key[idx[i]] / ntb / f->nv == p) {
      series s = {.r = rows, .x = x, .thr = thr, .n = 0, .variant = key[idx[i]] / ntb % f->nv};
      for (size_t k = key[idx[i]]; i < n && key[idx[i]] == k; i++, s.n++) {
        rows[s.n] = f->h[idx[i]];
        x[s.n] = xof[idx[i]];
      }
      series_trends(g, &s);
      o.no_base += !s.tr->against_baseline;
      history_series(f, &s, nseries == 0, &o);
      longest = s.n > longest ? s.n : longest;
      nseries++;
    }
    if (!nseries) fprintf(o.series, "1 NaN 0 1\n");
    panel_band(&o);
    /* An index needs a row. Far outside the y range, not NaN: gnuplot 5.4 crashes drawing labels
     * of which none is valid. */
    if (o.changes == marks_before) fprintf(o.marks, "1 1e30 1 0 \"-\"\n");
    size_t m = strlen(nmarks);
    snprintf(nmarks + m, sizeof nmarks - m, "%zu ", o.changes - marks_before);
    panel_range(&o, ymins, ymaxs, sizeof ymins);
  }
  history_labels(files[2], runs, nruns);
  int bad = chart_close_data(files[0], paths[0], err, errlen) | chart_close_data(files[1], paths[1], err, errlen) |
      chart_close_data(files[2], paths[2], err, errlen) | chart_close_data(files[3], paths[3], err, errlen);
  free(runs), free(xof), free(panel), free(key), free(idx), free(rows), free(x), free(thr), free(o.deltas),
      free(o.band_lo), free(o.band_hi);
  if (bad) return RENDER_FAILED;

  if (nruns == 1)
    chart_note(f, "One run recorded in the history so far: the over-time chart shows a single point per variant.");
  if (!g->trends->baseline)
    chart_note(f,
               "No baseline for %s in its trends: the over-time chart shows each benchmark against the "
               "median of its first %zu rows.",
               g->slug, g->trends->window);
  else if (o.no_base)
    chart_note(f,
               "%zu benchmarks of the history are not in the baseline %s: charted against the median of "
               "their first %zu rows.",
               o.no_base, g->trends->baseline, g->trends->window);
  const char *const p4[4] = {paths[0], paths[1], paths[2], paths[3]};
  return history_chart(env, g, f, stem, p4, panels, ymins, ymaxs, nmarks, npanels, nruns, longest, &o, err, errlen);
}
