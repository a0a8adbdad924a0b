/* What every chart shares (gnuplot_files.c): gnuplot's -e variables, file names and data files of a chart, and
 * running gnuplot on a script. For the chart renderer (charts.c, chart_history.c). */
#ifndef PLOTS_GNUPLOT_FILES_H
#define PLOTS_GNUPLOT_FILES_H

#include <stdio.h>

#include "plots/model.h"

/* Where the charts are drawn: gnuplot, its scripts and the output folder (render.c fills it). */
typedef struct {
  const char *gnuplot; /* program name or path */
  const char *scripts; /* directory holding ladder.gp, size.gp, history.gp, style.gp */
  const char *outdir;
} render_env;

/* gnuplot's -e variables of one chart. */
typedef struct {
  char s[16384];
  size_t len;
} vars;

void chart_note(family_view *f, const char *fmt, ...);
void chart_var_str(vars *v, const char *key, const char *value);
void chart_var_num(vars *v, const char *key, double x);
void chart_data_str(FILE *f, const char *s);
void chart_stem_of(const gpu_view *g, const family_view *f, const char *kind, char *buf, size_t len);
FILE *chart_open_data(const render_env *env, const char *stem, const char *what, char *path, size_t len, char *err,
                      size_t errlen);
int chart_close_data(FILE *f, const char *path, char *err, size_t errlen);
int chart_run_gnuplot(const render_env *env, const char *script, const vars *v, const char *stem, chart *c, char *err,
                      size_t errlen);

#endif
