/* Writes the gnuplot data files of every chart into OUTDIR/data and runs the
 * scripts of plots/ on them, for PNG (pngcairo) and SVG. */
#ifndef PLOTS_CHARTS_H
#define PLOTS_CHARTS_H

#include "plots/gnuplot_files.h" /* render_env */

/* Renders every chart of the model, filling each family's charts and notes.
 * RENDER_OK, or RENDER_FAILED with a message (gnuplot missing or failing,
 * an unwritable directory); a chart that failed is removed, never left blank. */
int render_charts(const render_env *env, const render_inputs *in, report_model *m, char *err, size_t errlen);

#endif
