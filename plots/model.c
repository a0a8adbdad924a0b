#include "plots/model.h"

#include "perf/common/fail.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define GROW(arr, n) \
  ((arr) = realloc((arr), ((n) + 1) * sizeof *(arr)), memset(&(arr)[(n)], 0, sizeof *(arr)), &(arr)[(n)++])

/* A FLOP-bound kernel (matmul) is charted in FLOP/s: its bytes say little. The
 * memory-bound ones report FLOPs too (add: 1 per 12 bytes), hence the cut. */
#define FLOP_BOUND_INTENSITY 1.0

static gpu_view *gpu_of(report_model *m, const char *slug) {
  for (size_t i = 0; i < m->ng; i++)
    if (!strcmp(m->g[i].slug, slug)) return &m->g[i];
  gpu_view *g = GROW(m->g, m->ng);
  snprintf(g->slug, sizeof g->slug, "%s", slug);
  snprintf(g->name, sizeof g->name, "%s", slug);
  return g;
}

static family_view *family_of(gpu_view *g, const char *name) {
  for (size_t i = 0; i < g->nf; i++)
    if (!strcmp(g->f[i].name, name)) return &g->f[i];
  family_view *f = GROW(g->f, g->nf);
  snprintf(f->name, sizeof f->name, "%s", name);
  return f;
}

static void add_variant(family_view *f, const char *name, int library_reference) {
  for (size_t i = 0; i < f->nv; i++)
    if (!strcmp(f->v[i].name, name)) return;
  variant_info *v = GROW(f->v, f->nv);
  snprintf(v->name, sizeof v->name, "%s", name);
  v->library_reference = library_reference;
}

const entry *find_entry(const family_view *f, const char *bench) {
  for (size_t i = 0; i < f->ne; i++)
    if (!strcmp(f->e[i].b->name, bench)) return &f->e[i];
  return NULL;
}

int variant_index(const family_view *f, const char *variant) {
  for (size_t i = 0; i < f->nv; i++)
    if (!strcmp(f->v[i].name, variant)) return (int)i + 1;
  return 1;
}

const char *unit_of(const family_view *f) { return f->flops ? "TFLOP/s" : "GB/s"; }

double entry_value(const family_view *f, const entry *e) {
  if (f->flops) return e->b->flops_per_call / e->b->time_ns / 1e3; /* FLOP per ns = GFLOP/s */
  return e->b->bytes_per_second / 1e9;
}

/* Later runs replace earlier figures of the same benchmark (ISO dates; a tie goes to the later input). */
static void add_entry(gpu_view *g, const run_file *run, const run_bench *b) {
  family_view *f = family_of(g, b->id.family);
  for (size_t i = 0; i < f->ne; i++)
    if (!strcmp(f->e[i].b->name, b->name)) {
      if (strcmp(run->date, f->e[i].run->date) >= 0) f->e[i] = (entry){b, run};
      return;
    }
  *GROW(f->e, f->ne) = (entry){b, run};
}

static gpu_view *find_gpu(report_model *m, const char *slug) {
  for (size_t i = 0; i < m->ng; i++)
    if (!strcmp(m->g[i].slug, slug)) return &m->g[i];
  return NULL;
}

const trend_row *trend_row_of(const trend_history *h, const history_row *r, const trend_series **series) {
  for (size_t i = 0; h && i < h->n; i++) {
    const trend_series *s = &h->s[i];
    if (strcmp(s->bench, r->bench) || strcmp(s->l2_flush, r->l2_flush) || strcmp(s->testbed, r->testbed)) continue;
    size_t lo = 0, hi = s->nrows; /* rows in file order */
    while (lo < hi) {
      size_t mid = (lo + hi) / 2;
      if (s->rows[mid].line < r->line)
        lo = mid + 1;
      else
        hi = mid;
    }
    if (lo == s->nrows || s->rows[lo].line != r->line) return NULL;
    if (series) *series = s;
    return &s->rows[lo];
  }
  return NULL;
}

/* ... and each row of the trends is a row given, once: a change point at a row the history given lacks (trends of a
 * longer history, or rows removed since) was dropped from the chart and counted all the same. */
static int trends_rows_given(const gpu_view *g, char *err, size_t errlen) {
  const trend_history *t = g->trends;
  char **seen = calloc(t->n + 1, sizeof *seen);
  int rc = 0;
  for (size_t i = 0; i < t->n; i++) seen[i] = calloc(t->s[i].nrows + 1, 1);
  for (size_t k = 0; k < g->nf && !rc; k++)
    for (size_t r = 0; r < g->f[k].nh && !rc; r++) {
      const trend_series *s;
      const trend_row *row = trend_row_of(t, g->f[k].h[r], &s);
      char *mark = &seen[s - t->s][row - s->rows];
      if ((*mark)++)
        rc = fail(err, errlen,
                  "line %zu of a history of %s is given twice (two history files of one GPU?): give %s once, with "
                  "the trends `gate trends --json` wrote of it",
                  row->line, g->slug, t->history);
    }
  for (size_t i = 0; i < t->n && !rc; i++)
    for (size_t j = 0; j < t->s[i].nrows && !rc; j++)
      if (!seen[i][j])
        rc = fail(err, errlen,
                  "the trends of %s (%s) hold %s [l2_flush %s]%s%s at line %zu, a row the history given lacks: they "
                  "were written from another history; run `gate trends --json` on this one again",
                  g->slug, t->history, t->s[i].bench, t->s[i].l2_flush, t->s[i].testbed[0] ? " @" : "", t->s[i].testbed,
                  t->s[i].rows[j].line);
  for (size_t i = 0; i < t->n; i++) free(seen[i]);
  free(seen);
  return rc;
}

/* Each GPU with history rows takes the trends `gate trends --json` wrote of its history: the over-time chart draws
 * what the gate decided (band, reference level, change points, creep) and decides nothing itself. */
static int attach_trends(const render_inputs *in, report_model *m, char *err, size_t errlen) {
  for (size_t i = 0; i < m->ng; i++) {
    gpu_view *g = &m->g[i];
    size_t rows = 0;
    for (size_t k = 0; k < g->nf; k++) rows += g->f[k].nh;
    for (size_t t = 0; t < in->ntrends; t++) {
      if (strcmp(in->trends[t].gpu, g->slug)) continue;
      if (g->trends)
        return fail(err, errlen,
                    "the trends of %s are given twice (%s and %s, both from `gate trends --json`): give one file "
                    "per history",
                    g->slug, g->trends->history, in->trends[t].history);
      g->trends = &in->trends[t];
    }
    if (rows && !g->trends)
      return fail(err, errlen,
                  "history rows of %s are given, but not its trends: run `gate trends --json=trends.json "
                  "--baseline=BASELINE HISTORY.csv` (ci/report.sh does) and give trends.json too",
                  g->slug);
    /* Every row charted has its place in them: trends written from another history (or before rows were
     * appended) are refused, never drawn from a guess. */
    for (size_t k = 0; k < g->nf; k++)
      for (size_t r = 0; r < g->f[k].nh; r++) {
        const history_row *row = g->f[k].h[r];
        if (!trend_row_of(g->trends, row, NULL))
          return fail(err, errlen,
                      "the trends of %s (%s, from %s) hold no row of %s [l2_flush %s]%s%s at line %zu of the "
                      "history: they were written from another history; run `gate trends --json` on this one again",
                      g->slug, g->trends->history, g->trends->history, row->bench, row->l2_flush,
                      row->testbed[0] ? " @" : "", row->testbed, row->line);
      }
    if (g->trends && trends_rows_given(g, err, errlen)) return 1;
  }
  return 0;
}

/* Notes a GPU whose baseline or history was given but is left out of the report. */
static void leave_out(report_model *m, const char *slug) {
  if (strstr(m->left_out, slug)) return;
  size_t len = strlen(m->left_out);
  snprintf(m->left_out + len, sizeof m->left_out - len, "%s%s", len ? ", " : "", slug);
}

/* The verdicts go to the GPU they name; a file from before the field names none
 * and can only belong to the one GPU of the report. */
static int attach_verdicts(const render_inputs *in, report_model *m, char *err, size_t errlen) {
  for (size_t v = 0; v < in->nverdicts; v++) {
    const verdicts_file *vf = &in->verdicts[v];
    gpu_view *g = NULL;
    if (vf->gpu_slug[0]) {
      g = find_gpu(m, vf->gpu_slug);
      if (!g) {
        snprintf(err, errlen,
                 "%s: field gpu.name: the verdicts are of %s, but no run or history of that GPU is "
                 "among the inputs: give the run JSON the verdicts were made from",
                 vf->path, vf->gpu_name);
        return 1;
      }
    } else if (m->ng == 1) {
      g = &m->g[0];
    } else {
      snprintf(err, errlen,
               "%s: a verdicts file names no GPU (written before gate check recorded it), but the "
               "report covers %zu GPUs: render it with the runs of one GPU, or re-run gate check",
               vf->path, m->ng);
      return 1;
    }
    *GROW(g->verdicts, g->nverdicts) = vf;
  }
  return 0;
}

int build_model(const render_inputs *in, report_model *m, char *err, size_t errlen) {
  memset(m, 0, sizeof *m);
  /* One baseline per GPU: of two (baselines/<gpu>.json beside the folder baselines/<gpu>/ that `gate migrate
   * --per_family` makes of it) the later was drawn and the other left out without a word. */
  for (size_t b = 0; b < in->nbases; b++)
    for (size_t a = 0; a < b; a++)
      if (!strcmp(in->bases[a].fig.gpu.slug, in->bases[b].fig.gpu.slug))
        return fail(err, errlen,
                    "%s and %s are both baselines of %s: give one (a file and the folder of a file per family that "
                    "`gate migrate --per_family` made of it? keep the folder and remove the file)",
                    in->bases[a].path, in->bases[b].path, in->bases[a].fig.gpu.slug);
  for (size_t r = 0; r < in->nruns; r++) {
    const run_file *run = &in->runs[r];
    gpu_view *g = gpu_of(m, run->gpu.slug);
    if (!g->run || strcmp(run->date, g->run->date) >= 0) {
      g->run = run;
      snprintf(g->name, sizeof g->name, "%s", run->gpu.name);
    }
    for (size_t i = 0; i < run->n; i++) add_entry(g, run, &run->b[i]);
  }
  /* Given runs, the report is about the GPUs they ran on: the baselines and history of
   * other GPUs (a CI job passes the whole baselines/ folder) are left out, and said so.
   * Given no run, it charts the history of every GPU. */
  int runs_given = in->nruns > 0;
  for (size_t h = 0; h < in->nhist; h++)
    for (size_t i = 0; i < in->hist[h].n; i++) {
      const history_row *row = &in->hist[h].r[i];
      if (runs_given && !find_gpu(m, row->gpu)) {
        leave_out(m, row->gpu);
        continue;
      }
      family_view *f = family_of(gpu_of(m, row->gpu), row->id.family);
      *GROW(f->h, f->nh) = row;
    }
  for (size_t b = 0; b < in->nbases; b++)
    if (!find_gpu(m, in->bases[b].fig.gpu.slug)) leave_out(m, in->bases[b].fig.gpu.slug);
  for (size_t i = 0; i < m->ng; i++) {
    gpu_view *g = &m->g[i];
    for (size_t b = 0; b < in->nbases; b++)
      if (!strcmp(in->bases[b].fig.gpu.slug, g->slug)) {
        g->base = &in->bases[b];
        if (!g->run) snprintf(g->name, sizeof g->name, "%s", g->base->fig.gpu.name);
      }
    for (size_t k = 0; k < g->nf; k++) {
      family_view *f = &g->f[k];
      for (size_t e = 0; e < f->ne; e++) {
        const run_bench *b = f->e[e].b;
        add_variant(f, b->id.variant, b->library_reference);
        double bytes = b->bytes_per_second * b->time_ns * 1e-9;
        if (b->flops_per_call > 0 && b->flops_per_call >= FLOP_BOUND_INTENSITY * bytes) f->flops = 1;
      }
      for (size_t h = 0; h < f->nh; h++) add_variant(f, f->h[h]->id.variant, 0);
    }
  }
  if (attach_verdicts(in, m, err, errlen) || attach_trends(in, m, err, errlen)) {
    free_model(m);
    return 1;
  }
  return 0;
}

void free_model(report_model *m) {
  for (size_t i = 0; i < m->ng; i++) {
    for (size_t k = 0; k < m->g[i].nf; k++) {
      free(m->g[i].f[k].e);
      free(m->g[i].f[k].v);
      free(m->g[i].f[k].h);
      free(m->g[i].f[k].cp);
      free(m->g[i].f[k].creep);
    }
    free(m->g[i].f);
    free(m->g[i].verdicts);
  }
  free(m->g);
  memset(m, 0, sizeof *m);
}
