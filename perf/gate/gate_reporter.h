/* The gate's reports behind one interface (#57), as the runner's reporter.h: a reporter writes the
 * report of a judged run in one format. One file per format: console_table.c (the table a command
 * prints), summary_md.c (summary.md), verdicts_json.c (verdicts.json, which `gate history` and the
 * renderer read back) and junit.c (JUnit XML, for $XML_OUTPUT_FILE). What they share (the verdict and
 * why in words, the evidence) is report.h; the descriptions of summary.md's columns, verdict_fields.h.
 *
 * One write of the whole report, not the runner's begin / result / end: the runner reports each
 * benchmark as it finishes, while the gate has judged them all before it reports, and each format
 * needs the whole set before its first line (summary.md its FAILED or passed and counts, the JUnit
 * XML its failures="N", verdicts.json one JSON document). So a reporter is one function, and a report
 * one struct of what the formats read. */
#ifndef PERF_GATE_GATE_REPORTER_H
#define PERF_GATE_GATE_REPORTER_H

#include <stddef.h>
#include <stdio.h>

#include "perf/gate/compare.h"
#include "perf/gate/figures.h"

typedef struct {
  const comparison *c; /* the verdicts, in the order they are shown */
  size_t n;
  const char *const *notes; /* a note per verdict ("(confirmed: ...)"): NULL, or NULL entries for none */
  const gate_policy *policy;
  const char *bench_name;  /* the benchmark binary's name: summary.md's title, the JUnit suite */
  const gate_figures *run; /* the run judged (its GPU, date, host, commit); NULL when nothing was measured
                              (A/B with every benchmark unchanged or new): then there is no verdicts.json */
  const char *against;     /* the base revision of an A/B run; NULL when judged against the baseline */
  const char *preface;     /* summary.md: a paragraph above its title (a warning), NULL for none */
} gate_report;

typedef struct {
  const char *name; /* the format: "summary.md", "verdicts.json", "JUnit XML", "table" */
  /* The whole report r to out: 0, or 1 with why in err, before anything was written (verdicts.json: a
   * figure that is not finite). */
  int (*write)(FILE *out, const gate_report *r, char *err, size_t errlen);
} gate_reporter;

extern const gate_reporter console_table_reporter; /* console_table.c */
extern const gate_reporter summary_md_reporter;    /* summary_md.c */
extern const gate_reporter verdicts_json_reporter; /* verdicts_json.c */
extern const gate_reporter junit_reporter;         /* junit.c */

/* rep's report r to the file path: composed in memory first, then written as write_report_text does, so that the
 * file is left as it was when rep or the write fails. 0 when all of it was written; else 1 and a message naming
 * path and the errno. */
int write_report_file(const gate_reporter *rep, const gate_report *r, const char *path, char *err, size_t errlen);
/* text to the report file path: a regular file (or none yet) through a temporary file beside it, renamed over it
 * (write_file_atomically), so that a failed write leaves no part of it; a device or pipe in place. 0, or 1 and a
 * message naming path and the errno of the step that failed. */
int write_report_text(const char *path, const char *text, char *err, size_t errlen);

#endif
