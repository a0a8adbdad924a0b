/* The fields of a verdict as the reports show them, each described once (#57): summary.md (summary_md.c) prints
 * its column headers and its legend from this table, and the HTML report (plots/html.c) its legend, so that the
 * two say the same thing. A field: a name (verdicts.json's key for it where it has one), the column header of
 * summary.md, and a description for the legends (NULL: none needed). */
#ifndef PERF_GATE_VERDICT_FIELDS_H
#define PERF_GATE_VERDICT_FIELDS_H

#include <stddef.h>

/* summary.md's columns, in its order, then the notes that are no column of their own. */
typedef enum {
  FIELD_BENCHMARK,
  FIELD_BASELINE,
  FIELD_NEW,
  FIELD_DELTA,
  FIELD_ALLOWED,
  FIELD_P,
  FIELD_GBPS,
  FIELD_OF_COPY,
  FIELD_EVIDENCE,
  FIELD_VERDICT,
  FIELD_COLUMNS, /* the fields above are summary.md's columns */
  FIELD_TIMES = FIELD_COLUMNS,
  FIELD_COUNT
} field_id;

typedef struct {
  const char *name;
  const char *header; /* NULL for a note on several columns (FIELD_TIMES) */
  int numeric;        /* a figure: right-aligned */
  /* A printf format with at most one conversion, of `value` (NULL: nothing to say). */
  const char *description;
  double value;
} verdict_field;

extern const verdict_field verdict_fields[FIELD_COUNT];

/* The legend of the fields ids[0..n), one sentence each, "Header: description." (a note: "Description."),
 * separated by spaces, into buf (cut short at len). Fields without a description are left out. */
void field_legend(const field_id *ids, size_t n, char *buf, size_t len);

#endif
