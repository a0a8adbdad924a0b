/* Helpers shared by the tests of //plots:render (render_*_test.c): running the render and gate binaries on the
 * fixtures of plots/testdata, reading back what they wrote, checking PNG and SVG files, and the render of
 * everything at once that several tests check. */
#ifndef PLOTS_RENDER_TESTUTIL_H
#define PLOTS_RENDER_TESTUTIL_H

#include <stddef.h>

#define FIX "plots/testdata"
#define SLUG "test-fixture-gpu"

extern const char *render_bin, *gate_bin; /* the test's two arguments */
extern char tmp[1024];                    /* this test's scratch folder */
/* The full render (full_render): its output folder, its stderr, its exit status (-1 when gate trends failed). */
extern char full_out[1200], full_err[1200];
extern int full_rc;

extern const char *kFamilies[3]; /* the fixture's families, in the report's order */

/* Reads the arguments (RENDER_BINARY GATE_BINARY) and makes tmp; nonzero, having said why, when it cannot. */
int render_test_setup(int argc, char **argv);
/* Everything at once, as CI will: runs, verdicts, and baselines/ (baseline + history), into full_out. */
void full_render(void);

/* Runs render with ARGS (already quoted where needed); stderr goes to ERRFILE. */
int run_render(const char *args, const char *errfile);
/* run_render with every file it (and gnuplot) writes limited to `bytes` (RLIMIT_FSIZE, SIGXFSZ ignored: a write past
 * it fails with EFBIG, as on a full disk); stderr through a pipe to ERRFILE, which the limit does not cut. */
int run_render_with_file_limit(long bytes, const char *args, const char *errfile);
/* `gate trends --json` of a history (with its baseline, or NULL), as ci/report.sh runs it before the renderer: what
 * the over-time chart draws. The trends file's path, quoted for a command line; NULL when the gate failed. */
const char *trends_of(const char *name, const char *baseline, const char *history);
/* Where trends_of(name, ...) wrote its file. */
const char *trends_file(const char *name);
/* trends_of, failing the test when the gate failed. */
const char *trends_ok(const char *name, const char *baseline, const char *history);

/* The whole file (malloc'd, NUL-terminated); its length in *len unless NULL. Fails the test if it cannot. */
char *slurp(const char *path, size_t *len);
size_t count_lines(const char *path);
/* Files of dir whose names end in suffix (0 when dir is not there). */
int count_files(const char *dir, const char *suffix);
/* PNG signature, IHDR first, its size; and more than a blank canvas would take. */
void check_png(const char *path, unsigned *w, unsigned *h);
/* An XML declaration, an <svg> element, not cut short, and enough drawn. */
void check_svg(const char *path);
/* A data file given to gnuplot in the full render: data/SLUG-<family>.<what>.dat. */
char *data_file(const char *family, const char *what);

#endif
