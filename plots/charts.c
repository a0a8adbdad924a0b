#define _GNU_SOURCE
#include "plots/charts.h"

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

static int fail(char *err, size_t errlen, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(err, errlen, fmt, ap);
  va_end(ap);
  return RENDER_FAILED;
}

static void note(family_view *f, const char *fmt, ...) {
  size_t k = strlen(f->notes);
  va_list ap;
  va_start(ap, fmt);
  if (k + 2 < sizeof f->notes) {
    if (k) f->notes[k++] = '\n';
    vsnprintf(f->notes + k, sizeof f->notes - k, fmt, ap);
  }
  va_end(ap);
}

/* ---------- gnuplot variables (-e) ---------- */

typedef struct {
  char s[16384];
  size_t len;
} vars;

static void var_printf(vars *v, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  if (v->len < sizeof v->s) {
    int n = vsnprintf(v->s + v->len, sizeof v->s - v->len, fmt, ap);
    if (n > 0) v->len += (size_t)n;
  }
  va_end(ap);
}

/* key='value'; gnuplot's single quotes take '' for a quote and nothing else is special. */
static void var_str(vars *v, const char *key, const char *value) {
  var_printf(v, "%s='", key);
  for (const char *p = value; *p; p++) var_printf(v, *p == '\'' ? "''" : "%c", *p);
  var_printf(v, "'; ");
}

static void var_num(vars *v, const char *key, double x) { var_printf(v, "%s=%.10g; ", key, x); }

/* A label for a data file: double-quoted, so no double quotes inside. */
static void data_str(FILE *f, const char *s) {
  fputc('"', f);
  for (; *s; s++) fputc(*s == '"' ? '\'' : *s, f);
  fputc('"', f);
}

/* ---------- files ---------- */

/* File names from GPU and family: letters, digits, '-', '_' and '.'. */
static void stem_of(const gpu_view *g, const family_view *f, const char *kind, char *buf, size_t len) {
  snprintf(buf, len, "%s-%s-%s", g->slug, f->name, kind);
  for (char *p = buf; *p; p++)
    if (!isalnum((unsigned char)*p) && *p != '-' && *p != '_' && *p != '.') *p = '_';
}

static FILE *open_data(const render_env *env, const char *stem, const char *what, char *path, size_t len, char *err,
                       size_t errlen) {
  snprintf(path, len, "%s/data/%s.%s.dat", env->outdir, stem, what);
  FILE *f = fopen(path, "w");
  if (!f) fail(err, errlen, "cannot write %s: %s", path, strerror(errno));
  return f;
}

static int close_data(FILE *f, const char *path, char *err, size_t errlen) {
  if (ferror(f) | fclose(f)) return fail(err, errlen, "writing %s failed: %s", path, strerror(errno));
  return 0;
}

/* Prints what gnuplot wrote on stderr (warnings too: a warning usually means a chart that misleads). */
static void relay_log(const char *log, const char *what) {
  FILE *f = fopen(log, "r");
  if (!f) return;
  char line[1024];
  int first = 1;
  while (fgets(line, sizeof line, f)) {
    if (first) fprintf(stderr, "render: gnuplot said, drawing %s:\n", what);
    first = 0;
    fprintf(stderr, "  %s", line);
  }
  fclose(f);
}

/* Runs one script for PNG and SVG into OUTDIR/STEM.png/.svg. */
static int run_gnuplot(const render_env *env, const char *script, const vars *v, const char *stem, chart *c,
                       char *err, size_t errlen) {
  static const char *kTerms[] = {"png", "svg"};
  char script_path[PATH_LEN];
  snprintf(script_path, sizeof script_path, "%s/%s", env->scripts, script);
  snprintf(c->png, sizeof c->png, "%s.png", stem);
  snprintf(c->svg, sizeof c->svg, "%s.svg", stem);
  for (int t = 0; t < 2; t++) {
    char out[PATH_LEN], log[PATH_LEN];
    snprintf(out, sizeof out, "%s/%s.%s", env->outdir, stem, kTerms[t]);
    snprintf(log, sizeof log, "%s/data/%s.%s.log", env->outdir, stem, kTerms[t]);
    vars all = {.len = 0};
    var_str(&all, "scriptdir", env->scripts);
    var_str(&all, "term", kTerms[t]);
    var_str(&all, "outfile", out);
    var_num(&all, "width", c->width);
    var_num(&all, "height", c->height);
    var_printf(&all, "%s", v->s);
    if (all.len >= sizeof all.s) return fail(err, errlen, "%s: too many gnuplot variables", stem);
    fflush(stderr);
    pid_t pid = fork();
    if (pid == 0) {
      int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0644);
      if (fd >= 0) dup2(fd, 2);
      /* Labels are UTF-8 (×, ±); under a C locale (bazel test) gnuplot would warn and mangle them. */
      setenv("LC_ALL", "C.UTF-8", 1);
      execlp(env->gnuplot, env->gnuplot, "-e", all.s, script_path, (char *)NULL);
      fprintf(stderr, "cannot run %s: %s (install gnuplot: Debian package gnuplot-nox)\n", env->gnuplot,
              strerror(errno));
      _exit(127);
    }
    int status = 0;
    if (pid < 0 || waitpid(pid, &status, 0) < 0) return fail(err, errlen, "cannot start gnuplot: %s", strerror(errno));
    relay_log(log, out);
    struct stat st;
    int ok = WIFEXITED(status) && WEXITSTATUS(status) == 0 && stat(out, &st) == 0 && st.st_size > 0;
    if (!ok) {
      unlink(out); /* never leave a blank or half-written chart behind */
      if (WIFEXITED(status) && WEXITSTATUS(status) == 127)
        return fail(err, errlen, "could not run '%s' for %s: is gnuplot installed (Debian: gnuplot-nox)?",
                    env->gnuplot, out);
      return fail(err, errlen, "gnuplot %s failed (%s %d) drawing %s; its messages are above and in %s", script_path,
                  WIFEXITED(status) ? "exit status" : "signal",
                  WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status), out, log);
    }
  }
  return 0;
}

/* ---------- shared helpers ---------- */

static int by_size(const void *a, const void *b) {
  const entry *x = a, *y = b;
  if (x->b->id.size != y->b->id.size) return x->b->id.size < y->b->id.size ? -1 : 1;
  return strcmp(x->b->id.params, y->b->id.params);
}

static double bytes_of_baseline(const gate_bench *b) {
  /* The baseline keeps the mean over runs of bytes / run median. */
  double inv = 0;
  for (size_t r = 0; r < b->nruns; r++) inv += 1e9 / b->runs[r].median_ns;
  return b->nruns ? b->bytes_per_second / (inv / (double)b->nruns) : 0;
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
  data_str(l->f, title);
  if (isnan(value)) fprintf(l->f, "\nNaN\n");
  else fprintf(l->f, "\n%.10g\n", value);
  size_t a = strlen(l->colors), b = strlen(l->dashes);
  snprintf(l->colors + a, sizeof l->colors - a, "%s ", kColor[kind]);
  snprintf(l->dashes + b, sizeof l->dashes - b, "%d ", kDash[kind]);
  l->n++;
}

/* gnuplot reads the file of an empty `plot for` range anyway: give it a line that draws nothing. */
static void pass_lines(line_set *l, const char *path, vars *v) {
  if (l->n == 0) add_line(l, LINE_REFERENCE, NAN, "%s", "");
  var_str(v, "linefile", path);
  var_num(v, "nlines", l->n);
  var_str(v, "linecolors", l->colors);
  var_str(v, "linedashes", l->dashes);
}

/* ---------- the ladder ---------- */

/* The ladder's y axes: what a bar's height means (left) and what the right axis reads. */
typedef struct {
  double peak, copy;     /* GB/s of the run's peak and copy probe */
  const entry *ref0;     /* the first library reference at the ladder's size, if any */
  double y2factor;       /* right axis = left axis * y2factor (0: none) */
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

/* One bar per variant at `params`, in registration order (the references only if there is nothing
 * else). Returns how many; *ymax grows to the tallest. */
static int ladder_bars(FILE *bars, const family_view *f, const char *params, size_t nvariants, const ladder_axes *a,
                       double *ymax) {
  int nbars = 0;
  for (size_t i = 0; i < f->ne; i++) {
    const entry *e = &f->e[i];
    if (strcmp(e->b->id.params, params) != 0 || (e->b->reference && nvariants > 0)) continue;
    double gbps = e->b->bytes_per_second / 1e9, y;
    char label[256];
    if (f->flops) {
      y = entry_value(f, e);
      if (a->ref0) snprintf(label, sizeof label, "%.1f TFLOP/s\\n%.0f%% of %s", y, y * a->y2factor, a->ref0->b->id.variant);
      else snprintf(label, sizeof label, "%.1f TFLOP/s", y);
    } else if (a->peak > 0) {
      y = 100 * gbps / e->run->peak_gbps;
      snprintf(label, sizeof label, "%.0f%% peak\\n%.0f%% copy", y, 100 * gbps / e->run->copy_gbps);
    } else {
      y = 100 * gbps / e->run->copy_gbps;
      snprintf(label, sizeof label, "%.0f GB/s\\n%.0f%% copy", gbps, y);
    }
    data_str(bars, e->b->id.variant);
    fprintf(bars, " %.10g ", y);
    data_str(bars, label);
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
    if (strcmp(e->b->id.params, params) != 0 || !e->b->reference) continue;
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
    nvariants += !f->e[i].b->reference;
    if (f->e[i].b->reference && !ref0) ref0 = &f->e[i];
  }

  char stem[600], bars_path[PATH_LEN], lines_path[PATH_LEN];
  stem_of(g, f, "ladder", stem, sizeof stem);
  FILE *bars = open_data(env, stem, "bars", bars_path, sizeof bars_path, err, errlen);
  if (!bars) return RENDER_FAILED;
  line_set lines = {.f = open_data(env, stem, "lines", lines_path, sizeof lines_path, err, errlen)};
  if (!lines.f) return fclose(bars), RENDER_FAILED;

  const run_file *run = top->run;
  ladder_axes a;
  ladder_axes_of(f, run, ref0, &a);
  double ymax = 0;
  int nbars = ladder_bars(bars, f, params, nvariants, &a, &ymax);
  ladder_lines(&lines, f, params, nvariants, &a, &ymax);
  vars v = {.len = 0};
  pass_lines(&lines, lines_path, &v);
  if (close_data(bars, bars_path, err, errlen) | close_data(lines.f, lines_path, err, errlen)) return RENDER_FAILED;

  chart *c = &f->charts[f->ncharts];
  char caption[sizeof c->caption]; /* built apart: the family name lives in the same struct */
  c->kind = "ladder";
  c->width = 960;
  c->height = 560;
  char title[600];
  snprintf(title, sizeof title, "%s: variants at %s = %s on %s", f->name, top->b->id.size_axis[0] ? top->b->id.size_axis : "size",
           top->b->id.size_label, g->name);
  var_str(&v, "title", title);
  var_str(&v, "barfile", bars_path);
  var_num(&v, "nbars", nbars);
  var_num(&v, "ymax", ymax * 1.25);
  var_str(&v, "ylabel", a.ylabel);
  var_str(&v, "y2label", a.y2label);
  var_num(&v, "y2factor", a.y2factor);
  snprintf(caption, sizeof caption,
           "Ladder of %s at the largest size measured (%s = %s), variants in registration order, from the run of %s "
           "(%s). %s",
           f->name, top->b->id.size_axis, top->b->id.size_label, run->date, run->executable,
           f->flops ? "Bars in TFLOP/s; the library reference as a line."
                    : "Bars as % of the theoretical peak (left axis) and of the copy probe measured in the same run "
                      "(right axis); library references, the copy probe and the peak as lines.");
  snprintf(c->caption, sizeof c->caption, "%s", caption);
  if (run_gnuplot(env, "ladder.gp", &v, stem, c, err, errlen)) return RENDER_FAILED;
  f->ncharts++;
  return 0;
}

/* ---------- throughput against size ---------- */

static int chart_size(const render_env *env, gpu_view *g, family_view *f, char *err, size_t errlen) {
  char stem[600], data_path[PATH_LEN], lines_path[PATH_LEN];
  stem_of(g, f, "size", stem, sizeof stem);
  FILE *data = open_data(env, stem, "series", data_path, sizeof data_path, err, errlen);
  if (!data) return RENDER_FAILED;
  line_set lines = {.f = open_data(env, stem, "lines", lines_path, sizeof lines_path, err, errlen)};
  if (!lines.f) return fclose(data), RENDER_FAILED;

  entry *sorted = malloc(f->ne * sizeof *sorted);
  memcpy(sorted, f->e, f->ne * sizeof *sorted);
  qsort(sorted, f->ne, sizeof *sorted, by_size);
  double xmin = sorted[0].b->id.size, xmax = sorted[f->ne - 1].b->id.size;
  vars v = {.len = 0};
  char colors[256] = "", dashed[256] = "";
  int nseries = 0;
  for (size_t k = 0; k < f->nv; k++) {
    int any = 0;
    for (size_t i = 0; i < f->ne; i++) {
      if (strcmp(sorted[i].b->id.variant, f->v[k].name) != 0) continue;
      if (!any) {
        if (nseries) fputs("\n\n", data);
        data_str(data, f->v[k].name);
        fputc('\n', data);
        size_t a = strlen(colors), b = strlen(dashed);
        snprintf(colors + a, sizeof colors - a, "%zu ", k + 1);
        snprintf(dashed + b, sizeof dashed - b, "%d ", f->v[k].reference);
        nseries++;
        any = 1;
      }
      fprintf(data, "%.10g %.10g ", sorted[i].b->id.size, entry_value(f, &sorted[i]));
      data_str(data, sorted[i].b->id.size_label);
      fputc('\n', data);
    }
  }
  const run_file *run = sorted[f->ne - 1].run;
  if (!f->flops) {
    if (run->peak_gbps > 0) add_line(&lines, LINE_PEAK, run->peak_gbps, "theoretical peak: %.0f GB/s", run->peak_gbps);
    add_line(&lines, LINE_COPY, run->copy_gbps, "copy probe: %.0f GB/s", run->copy_gbps);
  }
  pass_lines(&lines, lines_path, &v);
  int single = xmin == xmax;
  const char *axis = sorted[0].b->id.size_axis;
  free(sorted);
  if (close_data(data, data_path, err, errlen) | close_data(lines.f, lines_path, err, errlen)) return RENDER_FAILED;
  if (single) note(f, "Only one problem size was measured: the size chart shows single points.");

  chart *c = &f->charts[f->ncharts];
  char caption[sizeof c->caption]; /* built apart: the family name lives in the same struct */
  c->kind = "size";
  c->width = 960;
  c->height = 580;
  char title[600], xlabel[256], ylabel[64];
  snprintf(title, sizeof title, "%s: %s against problem size on %s", f->name, f->flops ? "FLOP/s" : "bandwidth",
           g->name);
  snprintf(xlabel, sizeof xlabel, "problem size%s%s (log scale)", axis[0] ? ": " : "", axis);
  snprintf(ylabel, sizeof ylabel, "%s", unit_of(f));
  var_str(&v, "title", title);
  var_str(&v, "xlabel", xlabel);
  var_str(&v, "ylabel", ylabel);
  var_str(&v, "datafile", data_path);
  var_num(&v, "nseries", nseries);
  var_str(&v, "colors", colors);
  var_str(&v, "dashed", dashed);
  var_num(&v, "xmin", xmin / 2);
  var_num(&v, "xmax", xmax * 2);
  snprintf(caption, sizeof caption,
           "%s of every variant of %s against problem size%s; library references dashed%s.",
           f->flops ? "TFLOP/s" : "Bandwidth (GB/s)", f->name, single ? " (one size only)" : "",
           f->flops ? "" : ", the theoretical peak and the copy probe of the run as dotted lines");
  snprintf(c->caption, sizeof c->caption, "%s", caption);
  if (run_gnuplot(env, "size.gp", &v, stem, c, err, errlen)) return RENDER_FAILED;
  f->ncharts++;
  return 0;
}

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

static int chart_history(const render_env *env, gpu_view *g, family_view *f, char *err, size_t errlen) {
  const char *method = history_method(g, f);
  size_t other_method = 0;
  const history_row **rows = calloc(f->nh + 1, sizeof *rows);
  size_t nrows = 0;
  for (size_t i = 0; i < f->nh; i++) {
    if (strcmp(f->h[i]->l2_flush, method) == 0) rows[nrows++] = f->h[i];
    else other_method++;
  }
  if (other_method)
    note(f, "%zu history rows measured with another L2 flush than the '%s' one of %s left out of the over-time "
         "chart: they do not compare.", other_method, method, g->base ? "the baseline" : "the newest run");
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

/* The runs in the order the history recorded them (it is append-only); xof[i] is row i's
 * run, from 1. Returns how many. */
static size_t history_runs(const family_view *f, run_key *runs, int *xof) {
  size_t nruns = 0;
  for (size_t i = 0; i < f->nh; i++) {
    size_t r = 0;
    while (r < nruns && (strcmp(runs[r].date, f->h[i]->date) || strcmp(runs[r].commit, f->h[i]->commit))) r++;
    if (r == nruns) runs[nruns++] = (run_key){f->h[i]->date, f->h[i]->commit};
    xof[i] = (int)r + 1;
  }
  return nruns;
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

typedef struct {
  FILE *series, *band;
  size_t skipped, slower, banded;
} history_counts;

/* Variant k's history rows of one panel into the series file; returns how many. */
static int history_series(const family_view *f, const bench_name *panel, size_t k, const int *xof, int rows_before,
                          history_counts *n) {
  int rows = 0;
  for (size_t i = 0; i < f->nh; i++) {
    const history_row *h = f->h[i];
    if (strcmp(h->id.params, panel->params) || strcmp(h->id.variant, f->v[k].name)) continue;
    double y = h->bytes_per_second / 1e9;
    if (f->flops) {
      const entry *e = find_entry(f, h->bench);
      if (!e || !(e->b->flops_per_call > 0)) {
        n->skipped++;
        continue;
      }
      y = e->b->flops_per_call / h->median_ns / 1e3;
    }
    if (!rows && rows_before) fputc('\n', n->series); /* a blank line: a new line in the chart */
    rows++;
    int is_slower = !strcmp(h->verdict, "slower");
    n->slower += is_slower;
    fprintf(n->series, "%d %.10g %d %zu\n", xof[i], y, is_slower, k + 1);
  }
  return rows;
}

/* The band the gate allows variant k of one panel: run time within base x (1 +- threshold).
 * Returns how many band rows were written. */
static int history_band(const gpu_view *g, const family_view *f, const bench_name *panel, size_t k,
                        history_counts *n) {
  char name[512];
  snprintf(name, sizeof name, "%s/%s%s%s", f->name, f->v[k].name, panel->params[0] ? "/" : "", panel->params);
  if (!g->base) return 0;
  int rows = 0;
  for (size_t b = 0; b < g->base->nself; b++) {
    const comparison *s = &g->base->self[b];
    if (strcmp(s->name, name) != 0) continue;
    double work = 0, scale = 1; /* bytes per ns = GB/s; FLOP per ns = 1e-3 TFLOP/s */
    if (f->flops) {
      const entry *e = find_entry(f, name);
      work = e ? e->b->flops_per_call : 0;
      scale = 1e-3;
    } else {
      work = bytes_of_baseline(&g->base->fig.b[b]);
    }
    if (!(work > 0)) continue;
    double lo = work / (s->base_ns * (1 + s->threshold)), hi = work / (s->base_ns * fmax(1 - s->threshold, 0.05));
    fprintf(n->band, "%zu %.10g %.10g %.10g\n", k + 1, lo * scale, hi * scale, work / s->base_ns * scale);
    rows++;
    n->banded++;
  }
  return rows;
}

/* Every run gets a tick; at most 9 get a label (a date is ~75 px wide, the plot ~880 px). */
static void history_labels(FILE *labels, const run_key *runs, size_t nruns) {
  size_t step = (nruns + 8) / 9;
  for (size_t r = 0; r < nruns; r++) {
    char commit[16], date[16];
    int show = r % step == 0;
    snprintf(commit, sizeof commit, "%.7s", show ? runs[r].commit : "");
    snprintf(date, sizeof date, "%.10s", show ? runs[r].date : "");
    fprintf(labels, "%zu ", r + 1);
    data_str(labels, commit);
    fputc(' ', labels);
    data_str(labels, date);
    fputc('\n', labels);
  }
}

/* Draws the over-time chart from the data files written by chart_history_rows. */
static int history_chart(const render_env *env, const gpu_view *g, family_view *f, const char *stem,
                         const char *const paths[3], const char *panels, size_t npanels, size_t nruns, size_t slower,
                         char *err, size_t errlen) {
  chart *c = &f->charts[f->ncharts];
  char caption[sizeof c->caption]; /* built apart: the family name lives in the same struct */
  c->kind = "history";
  c->width = 1000;
  int header = 44 + 20 * (int)((f->nv + 3 + 3) / 4), panel_px = 230, gap = 40, footer = 80;
  c->height = header + (int)npanels * (panel_px + gap) + footer;
  char title[600], variants[2048] = "", dashed[256] = "";
  for (size_t k = 0; k < f->nv; k++) {
    size_t a = strlen(variants), b = strlen(dashed);
    snprintf(variants + a, sizeof variants - a, "\"%s\" ", f->v[k].name);
    snprintf(dashed + b, sizeof dashed - b, "%d ", f->v[k].reference);
  }
  snprintf(title, sizeof title, "%s over time on %s (%zu run%s)", f->name, g->name, nruns, nruns == 1 ? "" : "s");
  vars v = {.len = 0};
  var_str(&v, "title", title);
  var_str(&v, "ylabel", unit_of(f));
  var_str(&v, "seriesfile", paths[0]);
  var_str(&v, "bandfile", paths[1]);
  var_str(&v, "labelfile", paths[2]);
  var_num(&v, "npanels", (double)npanels);
  var_num(&v, "nruns", (double)nruns);
  var_str(&v, "panels", panels);
  var_str(&v, "variants", variants);
  var_str(&v, "dashed", dashed);
  var_num(&v, "header", header);
  var_num(&v, "panel", panel_px);
  var_num(&v, "gap", gap);
  var_num(&v, "footer", footer);
  snprintf(caption, sizeof caption,
           "%s of %s over the %zu run%s in the history, one panel per problem size. Dashed: the baseline median; "
           "band: what the gate lets through (baseline time x (1 ± threshold), threshold = max(tolerance, "
           "k × baseline noise)). Circled red: %zu row%s the gate called slower.",
           unit_of(f), f->name, nruns, nruns == 1 ? "" : "s", slower, slower == 1 ? "" : "s");
  snprintf(c->caption, sizeof c->caption, "%s", caption);
  if (run_gnuplot(env, "history.gp", &v, stem, c, err, errlen)) return RENDER_FAILED;
  f->ncharts++;
  return 0;
}

static int chart_history_rows(const render_env *env, gpu_view *g, family_view *f, char *err, size_t errlen) {
  run_key *runs = calloc(f->nh + 1, sizeof *runs);
  int *xof = calloc(f->nh + 1, sizeof *xof);
  const bench_name **panel = calloc(f->nh + 1, sizeof *panel);
  size_t nruns = history_runs(f, runs, xof), npanels = history_panels(f, panel);

  char stem[600], series_path[PATH_LEN], band_path[PATH_LEN], label_path[PATH_LEN];
  stem_of(g, f, "history", stem, sizeof stem);
  FILE *series = open_data(env, stem, "series", series_path, sizeof series_path, err, errlen);
  FILE *band = series ? open_data(env, stem, "band", band_path, sizeof band_path, err, errlen) : NULL;
  FILE *labels = band ? open_data(env, stem, "labels", label_path, sizeof label_path, err, errlen) : NULL;
  if (!labels) {
    if (series) fclose(series);
    if (band) fclose(band);
    free(runs), free(xof), free(panel);
    return RENDER_FAILED;
  }
  history_counts n = {series, band, 0, 0, 0};
  char panels[4096] = "";
  for (size_t p = 0; p < npanels; p++) {
    if (p) fputs("\n\n", series), fputs("\n\n", band);
    size_t a = strlen(panels);
    snprintf(panels + a, sizeof panels - a, "\"%s%s%s\" ", panel[p]->size_axis, panel[p]->size_axis[0] ? " = " : "",
             panel[p]->size_label);
    int rows = 0, bands = 0;
    for (size_t k = 0; k < f->nv; k++) {
      rows += history_series(f, panel[p], k, xof, rows, &n);
      bands += history_band(g, f, panel[p], k, &n);
    }
    if (!rows) fprintf(series, "1 NaN 0 1\n");
    if (!bands) fprintf(band, "1 NaN NaN NaN\n"); /* an index needs a row; NaN draws nothing */
  }
  history_labels(labels, runs, nruns);
  int bad = close_data(series, series_path, err, errlen) | close_data(band, band_path, err, errlen) |
            close_data(labels, label_path, err, errlen);
  free(runs);
  free(xof);
  free(panel);
  if (bad) return RENDER_FAILED;

  if (nruns == 1) note(f, "One run recorded in the history so far: the over-time chart shows a single point per variant.");
  if (!g->base) note(f, "No baseline for %s among the inputs: the over-time chart has no tolerance band.", g->slug);
  else if (!n.banded) note(f, "The baseline %s has none of these benchmarks: no tolerance band.", g->base->path);
  if (n.skipped)
    note(f, "%zu history rows left out of the over-time chart: FLOP/s needs the FLOPs per call from a run JSON with "
         "the same benchmark.", n.skipped);
  const char *paths[3] = {series_path, band_path, label_path};
  return history_chart(env, g, f, stem, paths, panels, npanels, nruns, n.slower, err, errlen);
}

int render_charts(const render_env *env, const render_inputs *in, report_model *m, char *err, size_t errlen) {
  char data_dir[PATH_LEN];
  snprintf(data_dir, sizeof data_dir, "%s/data", env->outdir);
  if (mkdir(data_dir, 0755) != 0 && errno != EEXIST) return fail(err, errlen, "cannot create %s: %s", data_dir, strerror(errno));
  for (size_t i = 0; i < m->ng; i++) {
    gpu_view *g = &m->g[i];
    for (size_t k = 0; k < g->nf; k++) {
      family_view *f = &g->f[k];
      if (f->nh) {
        if (chart_history(env, g, f, err, errlen)) return RENDER_FAILED;
      } else if (in->nhist) {
        note(f, "No history rows for %s on %s: no over-time chart.", f->name, g->slug);
      }
      if (f->ne) {
        if (chart_ladder(env, g, f, err, errlen) || chart_size(env, g, f, err, errlen)) return RENDER_FAILED;
      } else {
        note(f, "No run JSON for %s on this GPU among the inputs: the ladder and size charts need one.", f->name);
      }
    }
  }
  return RENDER_OK;
}
