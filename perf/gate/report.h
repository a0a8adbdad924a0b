/* What the gate's reports share (#57): the verdict and why in words (verdict_reason), the evidence and a
 * failure in one line, and what a row shows. The formats themselves are behind
 * one interface, gate_reporter.h, a file each; the descriptions of their columns, verdict_fields.h. */
#ifndef PERF_GATE_REPORT_H
#define PERF_GATE_REPORT_H

#include <math.h>
#include <stdio.h>

#include "perf/gate/compare.h"

/* The verdict and why, in words a reader can check against the row's figures: "same: +5.78 % is within the
 * 22.2 % allowed: 3 x the baseline's noise of 7.40 %", "slower: +8.40 % > 3.0 % allowed: the tolerance; p 1e-06 <
 * 0.01; +0.52 us > the 0.25 us floor; confirmed in a fresh process" (#57). */
void verdict_reason(const comparison *c, const gate_policy *p, char *buf, size_t len);
/* What stands behind each side of a comparison: contexts and samples, baseline vs new. */
void evidence_text(const comparison *c, char *buf, size_t len);
/* One line saying why a benchmark failed: name, baseline and new figure, delta. */
void failure_message(const comparison *c, char *buf, size_t len);
/* The word that leads that line: "REGRESSION" when c fails the gate; a slower library reference "ENVIRONMENT
 * CHANGED" against this GPU's own runs, else "GPU OR ENVIRONMENT". */
const char *failure_label(const comparison *c);
/* The metric gated on, in words: "time", "time relative to copy". */
const char *metric_words(gate_metric m);

/* Whether c has each side's measures: not for a verdict with no measurement on that side. */
static inline int has_base(const comparison *c) { return c->v != VERDICT_NEW && c->v != VERDICT_UNCHANGED; }
static inline int has_run(const comparison *c) {
  return c->v != VERDICT_MISSING && isfinite(c->run_ns) && c->run_ns > 0;
}
static inline int has_delta(const comparison *c) { return has_base(c) && c->v != VERDICT_MISSING; }

#endif
