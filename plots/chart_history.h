/* The over-time chart of a family (chart_history.c): each benchmark's history against its baseline, the
 * thresholds it was judged with as a band, its change points and creep. render_charts (charts.c) calls it. */
#ifndef PLOTS_CHART_HISTORY_H
#define PLOTS_CHART_HISTORY_H

#include "plots/gnuplot_files.h"

int chart_history(const render_env *env, gpu_view *g, family_view *f, char *err, size_t errlen);

#endif
