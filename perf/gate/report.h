/* How the gate shows its verdicts: a console table, Markdown, JUnit XML and
 * a machine-readable verdicts file (read by `gate history`). */
#ifndef PERF_GATE_REPORT_H
#define PERF_GATE_REPORT_H

#include <stdio.h>

#include "perf/gate/compare.h"

/* Flushes and closes a report written through f: 0 when every write reached path; else 1
 * and a message naming path and the errno (a full disk shows only here, or at fclose). */
int close_report(FILE *f, const char *path, char *err, size_t errlen);
/* The verdict and why, in words a reader can check against the row's figures: "same: +5.78 % is within the
 * 22.2 % allowed: 3 x the baseline's noise of 7.40 %", "slower: +8.40 % > 3.0 % allowed: the tolerance; p 1e-06 <
 * 0.01; +0.52 us > the 0.25 us floor; confirmed in a fresh process" (#57). */
void verdict_reason(const comparison *c, const gate_policy *p, char *buf, size_t len);
/* Optional per-comparison notes (e.g. "re-measured: +1.2%"), NULL for none. Each row's verdict with its reason. */
void print_table(FILE *out, const comparison *c, size_t n, const char *const *notes, const gate_policy *policy);
void write_markdown(FILE *out, const char *title, const comparison *c, size_t n, const char *const *notes,
                    const gate_policy *policy);
/* One paragraph of summary.md: how many benchmarks each reference judged (the baseline's runs of this
 * testbed, A/B against the base revision: measured or unchanged, none: new), naming the A/B-measured and
 * new ones. */
void write_reference_summary(FILE *out, const comparison *c, size_t n);
void write_junit(FILE *out, const char *suite, const comparison *c, size_t n, const char *const *notes);
/* What stands behind each side of a comparison: contexts and samples, baseline vs new. */
void evidence_text(const comparison *c, char *buf, size_t len);
/* One line saying why a benchmark failed: name, baseline and new figure, delta. */
void failure_message(const comparison *c, char *buf, size_t len);
/* verdicts.json: {"metric", "gpu": {"name", "uuid"}, "run": {"date", "host", "commit"},
 * "verdicts": [...]}; gpu and run are those of `run` (the first measurement), so a verdicts
 * file names what it judged. 0 when written; else 1 and a message naming the file. */
/* compared_with: NULL for the baseline, else the base revision of an A/B run ("compared_with" in the file). */
int write_verdicts_json(const char *path, const gate_figures *run, const comparison *c, size_t n, gate_metric metric,
                        const char *compared_with, char *err, size_t errlen);

#endif
