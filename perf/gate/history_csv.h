/* Reads a history CSV (baselines/history/<gpu>.csv, appended by `gate history`) by the names in
 * its header, so that columns added later (a testbed, the threshold applied) break no reader.
 * Rows are plain CSV, never quoted. A file begun before the l2_flush column has the 8-name
 * header and rows with a 9th field: that field is l2_flush; rows without it were taken with
 * the memset flush ("write"). */
#ifndef PERF_GATE_HISTORY_CSV_H
#define PERF_GATE_HISTORY_CSV_H

#include <stddef.h>

typedef struct {
  size_t line;                              /* in the file, from 1 (the header) */
  const char *date, *commit, *gpu, *bench;  /* "" where the file has no such column */
  const char *verdict, *l2_flush, *testbed; /* "", except l2_flush: "write" where absent */
  double time_ns, bytes_per_second, spread; /* NAN where the file has no such column; time_ns: column median_ns,
                                               spread: the within-run spread, column noise (history.c) */
  double threshold;                         /* the threshold the gate applied; NAN where not recorded */
} history_entry;

typedef struct {
  char *text; /* the file, its fields cut in place */
  history_entry *r;
  size_t n;
  int has_threshold, has_spread, has_testbed; /* has_spread: the column noise */
  char skipped[512]; /* history_table_load_to_cut: the cut last row left out and why; "" when none */
} history_table;

/* The columns every reader needs. */
extern const char *const kHistoryNeeds[];

/* Loads path; `needs` (NULL-terminated; NULL: kHistoryNeeds) are the columns the caller needs.
 * 0, or 1 and a message naming the file, the line, the field and the fix. An empty file, a
 * file with no rows and a header without a needed column are errors. */
int history_table_load(const char *path, const char *const *needs, history_table *t, char *err, size_t errlen);
/* As history_table_load, for readers that only show the history (the renderer): a cut last row, one
 * without its newline or with the wrong number of fields (a write stopped by a full disk), is left
 * out and said in t->skipped (the file, the line and why) instead of refusing the whole file. A file's
 * only row is read as by history_table_load (refused when it does not parse). */
int history_table_load_to_cut(const char *path, const char *const *needs, history_table *t, char *err, size_t errlen);
void history_table_free(history_table *t);

/* The rows of one benchmark measured with the read flush: from row i on, every row of t.r[i].bench
 * with l2_flush "read" that done[] does not mark yet, its time (column median_ns) into x (room for t->n) and
 * marked in done. How many; 0 when row i is done or of another flush. The series that the trend tests and
 * trend_synth draw real run-to-run noise from. */
size_t history_read_series(const history_table *t, size_t i, char *done, double *x);

#endif
