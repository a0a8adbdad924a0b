/* OUTDIR/index.html: a static page (inline CSS, no JavaScript) with the GPU
 * and run context, the latest comparison table and the charts. */
#ifndef PLOTS_HTML_H
#define PLOTS_HTML_H

#include "plots/model.h"

/* Written into dir (render.c: a folder moved into OUTDIR once the whole report is written); the inputs' paths are
 * shown relative to OUTDIR's parent. RENDER_OK, or RENDER_FAILED with a message. */
int write_html(const char *dir, const char *outdir, const char *title, const render_inputs *in, const report_model *m,
               char *err, size_t errlen);

/* trends.md, into dir as write_html: per GPU, the change points since the last bless and the benchmarks that
 * crept beyond their tolerance (the text summary; a line per GPU on stdout, naming OUTDIR/trends.md). RENDER_OK,
 * or RENDER_FAILED with a message. */
int write_trends_text(const char *dir, const char *outdir, const report_model *m, char *err, size_t errlen);

#endif
