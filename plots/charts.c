#define _GNU_SOURCE
#include "plots/charts.h"
#include "plots/chart_history.h"
#include "plots/gnuplot_files.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "perf/common/fail.h"

/* fail (perf/common/fail.h) returns 1, RENDER_FAILED: a chart that cannot be drawn. */

/* ---------- shared helpers ---------- */

static int by_size(const void *a, const void *b) {
  const entry *x = a, *y = b;
  if (x->b->id.size != y->b->id.size) return x->b->id.size < y->b->id.size ? -1 : 1;
  return strcmp(x->b->id.params, y->b->id.params);
}

/* Horizontal lines of a chart, each drawn in the style of its kind. */
typedef enum { LINE_REFERENCE, LINE_COPY, LINE_PEAK } line_kind;

typedef struct {
  FILE *f;
  int n;
  char colors[512], dashes[128]; /* per line, for the script (word lists) */
} line_set;

static void add_line(line_set *l, line_kind kind, double value, const char *fmt, ...) {
  /* References black dashed, the copy probe grey dotted, the peak light grey solid. */
  static const char *kColor[] = {"#000000", "#666666", "#AAAAAA"};
  static const int kDash[] = {2, 3, 1};
  char title[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(title, sizeof title, fmt, ap);
  va_end(ap);
  if (l->n) fputs("\n\n", l->f);
  chart_data_str(l->f, title);
  if (isnan(value))
    fprintf(l->f, "\nNaN\n");
  else
    fprintf(l->f, "\n%.10g\n", value);
  size_t a = strlen(l->colors), b = strlen(l->dashes);
  snprintf(l->colors + a, sizeof l->colors - a, "%s ", kColor[kind]);
  snprintf(l->dashes + b, sizeof l->dashes - b, "%d ", kDash[kind]);
  l->n++;
}

/* gnuplot reads the file of an empty `plot for` range anyway: give it a line that draws nothing. */
static void pass_lines(line_set *l, const char *path, vars *v) {
  if (l->n == 0) add_line(l, LINE_REFERENCE, NAN, "%s", "");
  chart_var_str(v, "linefile", path);
  chart_var_num(v, "nlines", l->n);
  chart_var_str(v, "linecolors", l->colors);
  chart_var_str(v, "linedashes", l->dashes);
}

/* ---------- the ladder ---------- */

/* The ladder's y axes: what a bar's height means (left) and what the right axis reads. */
typedef struct {
  double peak, copy; /* GB/s of the run's peak and copy probe */
  const entry *ref0; /* the first library reference at the ladder's size, if any */
  double y2factor;   /* right axis = left axis * y2factor (0: none) */
  char ylabel[256], y2label[256];
} ladder_axes;

static void ladder_axes_of(const family_view *f, const run_file *run, const entry *ref0, ladder_axes *a) {
  a->peak = run->peak_gbps;
  a->copy = run->copy_gbps;
  a->ref0 = ref0;
  a->y2factor = 0;
  a->y2label[0] = '\0';
  if (f->flops) {
    snprintf(a->ylabel, sizeof a->ylabel, "TFLOP/s");
    if (ref0) {
      a->y2factor = 100 / entry_value(f, ref0);
      snprintf(a->y2label, sizeof a->y2label, "%% of %s (library reference)", ref0->b->id.variant);
    }
  } else if (a->peak > 0) {
    snprintf(a->ylabel, sizeof a->ylabel, "%% of theoretical peak (%.0f GB/s)", a->peak);
    a->y2factor = a->peak / a->copy;
    snprintf(a->y2label, sizeof a->y2label, "%% of copy probe (%.0f GB/s, cudaMemcpy device to device)", a->copy);
  } else {
    snprintf(a->ylabel, sizeof a->ylabel, "%% of copy probe (%.0f GB/s; theoretical peak unknown)", a->copy);
  }
}

/* The library reference a bar is read against. A reference named <library>_<tag> is the one of the variants
 * named <tag> or <tag>_...: matmul's tf32_* steps are read against cublas_tf32, not against fp32 cublas (they
 * round their inputs: another kind of result). Any other variant is read against the first reference whose
 * tag names no variant of the family (cublas), else against the first reference. NULL when there is none. */
static const entry *library_reference_of(const family_view *f, const char *params, const char *variant,
                                         const entry *ref0) {
  const entry *untagged = NULL;
  for (size_t i = 0; i < f->ne; i++) {
    const entry *e = &f->e[i];
    if (strcmp(e->b->id.params, params) != 0 || !e->b->library_reference) continue;
    const char *tag = strchr(e->b->id.variant, '_');
    size_t n = tag ? strlen(++tag) : 0;
    if (tag && n > 0 && !strncmp(variant, tag, n) && (variant[n] == '\0' || variant[n] == '_')) return e;
    int tag_names_a_variant = 0;
    for (size_t j = 0; tag && j < f->ne && !tag_names_a_variant; j++) {
      const char *w = f->e[j].b->id.variant;
      tag_names_a_variant = !f->e[j].b->library_reference && !strncmp(w, tag, n) && (w[n] == '\0' || w[n] == '_');
    }
    if (!tag_names_a_variant && !untagged) untagged = e;
  }
  return untagged ? untagged : ref0;
}

/* One bar per variant at `params`, in registration order (the references only if there is nothing
 * else). Returns how many; *ymax grows to the tallest. */
static int ladder_bars(FILE *bars, const family_view *f, const char *params, size_t nvariants, const ladder_axes *a,
                       double *ymax) {
  int nbars = 0;
  for (size_t i = 0; i < f->ne; i++) {
    const entry *e = &f->e[i];
    if (strcmp(e->b->id.params, params) != 0 || (e->b->library_reference && nvariants > 0)) continue;
    double gbps = e->b->bytes_per_second / 1e9, y;
    char label[256];
    if (f->flops) {
      y = entry_value(f, e);
      const entry *ref = library_reference_of(f, params, e->b->id.variant, a->ref0);
      if (ref && entry_value(f, ref) > 0)
        snprintf(label, sizeof label, "%.1f TFLOP/s\\n%.0f%% of %s", y, 100 * y / entry_value(f, ref),
                 ref->b->id.variant);
      else
        snprintf(label, sizeof label, "%.1f TFLOP/s", y);
    } else if (a->peak > 0) {
      y = 100 * gbps / e->run->peak_gbps;
      snprintf(label, sizeof label, "%.0f%% peak\\n%.0f%% copy", y, 100 * gbps / e->run->copy_gbps);
    } else {
      y = 100 * gbps / e->run->copy_gbps;
      snprintf(label, sizeof label, "%.0f GB/s\\n%.0f%% copy", gbps, y);
    }
    chart_data_str(bars, e->b->id.variant);
    fprintf(bars, " %.10g ", y);
    chart_data_str(bars, label);
    fputc('\n', bars);
    nbars++;
    if (y > *ymax) *ymax = y;
  }
  return nbars;
}

/* Lines: library references, then the copy probe and the peak they are measured against. */
static void ladder_lines(line_set *lines, const family_view *f, const char *params, size_t nvariants,
                         const ladder_axes *a, double *ymax) {
  for (size_t i = 0; i < f->ne && nvariants > 0; i++) {
    const entry *e = &f->e[i];
    if (strcmp(e->b->id.params, params) != 0 || !e->b->library_reference) continue;
    double v = entry_value(f, e), y = f->flops ? v : a->peak > 0 ? 100 * v / a->peak : 100 * v / a->copy;
    add_line(lines, LINE_REFERENCE, y, "%s (library reference): %.*f %s", e->b->id.variant, f->flops ? 1 : 0, v,
             unit_of(f));
    if (y > *ymax) *ymax = y;
  }
  if (!f->flops) {
    add_line(lines, LINE_COPY, a->peak > 0 ? 100 * a->copy / a->peak : 100, "copy probe: %.0f GB/s", a->copy);
    if (a->peak > 0) add_line(lines, LINE_PEAK, 100, "theoretical peak: %.0f GB/s", a->peak);
    *ymax = fmax(*ymax, 100);
  }
}

static int chart_ladder(const render_env *env, gpu_view *g, family_view *f, char *err, size_t errlen) {
  const entry *top = NULL, *ref0 = NULL;
  for (size_t i = 0; i < f->ne; i++)
    if (!top || f->e[i].b->id.size > top->b->id.size) top = &f->e[i];
  const char *params = top->b->id.params;
  size_t nvariants = 0;
  for (size_t i = 0; i < f->ne; i++) {
    if (strcmp(f->e[i].b->id.params, params) != 0) continue;
    nvariants += !f->e[i].b->library_reference;
    if (f->e[i].b->library_reference && !ref0) ref0 = &f->e[i];
  }

  char stem[600], bars_path[PATH_LEN], lines_path[PATH_LEN];
  chart_stem_of(g, f, "ladder", stem, sizeof stem);
  FILE *bars = chart_open_data(env, stem, "bars", bars_path, sizeof bars_path, err, errlen);
  if (!bars) return RENDER_FAILED;
  line_set lines = {.f = chart_open_data(env, stem, "lines", lines_path, sizeof lines_path, err, errlen)};
  if (!lines.f) return fclose(bars), RENDER_FAILED;

  const run_file *run = top->run;
  ref0 = library_reference_of(f, params, "", ref0); /* the right axis reads the variants' common reference */
  ladder_axes a;
  ladder_axes_of(f, run, ref0, &a);
  double ymax = 0;
  int nbars = ladder_bars(bars, f, params, nvariants, &a, &ymax);
  ladder_lines(&lines, f, params, nvariants, &a, &ymax);
  vars v = {.len = 0};
  pass_lines(&lines, lines_path, &v);
  if (chart_close_data(bars, bars_path, err, errlen) | chart_close_data(lines.f, lines_path, err, errlen))
    return RENDER_FAILED;

  chart *c = &f->charts[f->ncharts];
  char caption[sizeof c->caption]; /* built apart: the family name lives in the same struct */
  c->kind = "ladder";
  /* About 110 pixels a bar, so that the value labels of many bars (matmul's 12) do not run into each other. */
  c->width = nbars > 8 ? 110 * (nbars + 1) : 960;
  c->height = 560;
  char title[600];
  snprintf(title, sizeof title, "%s: variants at %s = %s on %s", f->name,
           top->b->id.size_axis[0] ? top->b->id.size_axis : "size", top->b->id.size_label, g->name);
  chart_var_str(&v, "title", title);
  chart_var_str(&v, "barfile", bars_path);
  chart_var_num(&v, "nbars", nbars);
  chart_var_num(&v, "ymax", ymax * 1.25);
  chart_var_str(&v, "ylabel", a.ylabel);
  chart_var_str(&v, "y2label", a.y2label);
  chart_var_num(&v, "y2factor", a.y2factor);
  snprintf(caption, sizeof caption,
           "Ladder of %s at the largest size measured (%s = %s), variants in registration order, from the run of %s "
           "(%s). %s",
           f->name, top->b->id.size_axis, top->b->id.size_label, run->date, run->executable,
           f->flops ? "Bars in TFLOP/s; the library reference as a line."
                    : "Bars as % of the theoretical peak (left axis) and of the copy probe measured in the same run "
                      "(right axis); library references, the copy probe and the peak as lines.");
  snprintf(c->caption, sizeof c->caption, "%s", caption);
  if (chart_run_gnuplot(env, "ladder.gp", &v, stem, c, err, errlen)) return RENDER_FAILED;
  f->ncharts++;
  return 0;
}

/* ---------- throughput against size ---------- */

static int chart_size(const render_env *env, gpu_view *g, family_view *f, char *err, size_t errlen) {
  char stem[600], data_path[PATH_LEN], lines_path[PATH_LEN];
  chart_stem_of(g, f, "size", stem, sizeof stem);
  FILE *data = chart_open_data(env, stem, "series", data_path, sizeof data_path, err, errlen);
  if (!data) return RENDER_FAILED;
  line_set lines = {.f = chart_open_data(env, stem, "lines", lines_path, sizeof lines_path, err, errlen)};
  if (!lines.f) return fclose(data), RENDER_FAILED;

  entry *sorted = malloc(f->ne * sizeof *sorted);
  memcpy(sorted, f->e, f->ne * sizeof *sorted);
  qsort(sorted, f->ne, sizeof *sorted, by_size);
  /* Each problem size has a place of its own on x, in order of size: shapes of nearly one element count
   * (4093×8191 and 8191×4099) sat at one x of a log axis, their labels over each other. */
  int *place = malloc(f->ne * sizeof *place), nplaces = 0;
  for (size_t i = 0; i < f->ne; i++) {
    int found = 0;
    for (size_t j = 0; j < i && !found; j++)
      if (!strcmp(sorted[j].b->id.size_label, sorted[i].b->id.size_label)) place[i] = place[j], found = 1;
    if (!found) place[i] = ++nplaces;
  }
  double xmin = 0.5, xmax = nplaces + 0.5;
  vars v = {.len = 0};
  char colors[256] = "", dashed[256] = "";
  int nseries = 0;
  for (size_t k = 0; k < f->nv; k++) {
    int any = 0;
    for (size_t i = 0; i < f->ne; i++) {
      if (strcmp(sorted[i].b->id.variant, f->v[k].name) != 0) continue;
      if (!any) {
        if (nseries) fputs("\n\n", data);
        chart_data_str(data, f->v[k].name);
        fputc('\n', data);
        size_t a = strlen(colors), b = strlen(dashed);
        snprintf(colors + a, sizeof colors - a, "%zu ", k + 1);
        snprintf(dashed + b, sizeof dashed - b, "%d ", f->v[k].library_reference);
        nseries++;
        any = 1;
      }
      fprintf(data, "%d %.10g ", place[i], entry_value(f, &sorted[i]));
      chart_data_str(data, sorted[i].b->id.size_label);
      fputc('\n', data);
    }
  }
  const run_file *run = sorted[f->ne - 1].run;
  if (!f->flops) {
    if (run->peak_gbps > 0) add_line(&lines, LINE_PEAK, run->peak_gbps, "theoretical peak: %.0f GB/s", run->peak_gbps);
    add_line(&lines, LINE_COPY, run->copy_gbps, "copy probe: %.0f GB/s", run->copy_gbps);
  }
  pass_lines(&lines, lines_path, &v);
  int single = nplaces == 1;
  const char *axis = sorted[0].b->id.size_axis;
  free(sorted);
  free(place);
  if (chart_close_data(data, data_path, err, errlen) | chart_close_data(lines.f, lines_path, err, errlen))
    return RENDER_FAILED;
  if (single) chart_note(f, "Only one problem size was measured: the size chart shows single points.");

  chart *c = &f->charts[f->ncharts];
  char caption[sizeof c->caption]; /* built apart: the family name lives in the same struct */
  c->kind = "size";
  c->width = 960;
  c->height = 580;
  char title[600], xlabel[256], ylabel[64];
  snprintf(title, sizeof title, "%s: %s against problem size on %s", f->name, f->flops ? "FLOP/s" : "bandwidth",
           g->name);
  snprintf(xlabel, sizeof xlabel, "problem size%s%s (in order of size)", axis[0] ? ": " : "", axis);
  snprintf(ylabel, sizeof ylabel, "%s", unit_of(f));
  chart_var_str(&v, "title", title);
  chart_var_str(&v, "xlabel", xlabel);
  chart_var_str(&v, "ylabel", ylabel);
  chart_var_str(&v, "datafile", data_path);
  chart_var_num(&v, "nseries", nseries);
  chart_var_str(&v, "colors", colors);
  chart_var_str(&v, "dashed", dashed);
  chart_var_num(&v, "xmin", xmin);
  chart_var_num(&v, "xmax", xmax);
  snprintf(caption, sizeof caption, "%s of every variant of %s against problem size%s; library references dashed%s.",
           f->flops ? "TFLOP/s" : "Bandwidth (GB/s)", f->name, single ? " (one size only)" : "",
           f->flops ? "" : ", the theoretical peak and the copy probe of the run as dotted lines");
  snprintf(c->caption, sizeof c->caption, "%s", caption);
  if (chart_run_gnuplot(env, "size.gp", &v, stem, c, err, errlen)) return RENDER_FAILED;
  f->ncharts++;
  return 0;
}

int render_charts(const render_env *env, const render_inputs *in, report_model *m, char *err, size_t errlen) {
  char data_dir[PATH_LEN];
  snprintf(data_dir, sizeof data_dir, "%s/data", env->outdir);
  if (mkdir(data_dir, 0755) != 0 && errno != EEXIST)
    return fail(err, errlen, "cannot create %s: %s", data_dir, strerror(errno));
  for (size_t i = 0; i < m->ng; i++) {
    gpu_view *g = &m->g[i];
    for (size_t k = 0; k < g->nf; k++) {
      family_view *f = &g->f[k];
      if (f->nh) {
        if (chart_history(env, g, f, err, errlen)) return RENDER_FAILED;
      } else if (in->nhist) {
        chart_note(f, "No history rows for %s on %s: no over-time chart.", f->name, g->slug);
      }
      if (f->ne) {
        if (chart_ladder(env, g, f, err, errlen) || chart_size(env, g, f, err, errlen)) return RENDER_FAILED;
      } else {
        chart_note(f, "No run JSON for %s on this GPU among the inputs: the ladder and size charts need one.", f->name);
      }
    }
  }
  return RENDER_OK;
}
