/* OUTDIR/index.html: a static page (inline CSS, no JavaScript) with the GPU
 * and run context, the latest comparison table and the charts. */
#ifndef PLOTS_HTML_H
#define PLOTS_HTML_H

#include "plots/model.h"

/* RENDER_OK, or RENDER_FAILED with a message. */
int write_html(const char *outdir, const char *title, const render_inputs *in, const report_model *m, char *err,
               size_t errlen);

/* OUTDIR/trends.md: per GPU, the change points since the last bless and the benchmarks that
 * crept beyond their tolerance (the text summary; a line per GPU on stdout). RENDER_OK, or
 * RENDER_FAILED with a message. */
int write_trends_text(const char *outdir, const report_model *m, char *err, size_t errlen);

#endif
