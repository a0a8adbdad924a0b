/* The console reporter (gate_reporter.h): the table that gate check, compare and bless print, a row per
 * benchmark with its figures, evidence, verdict and why, and its note. */
#include <stdio.h>
#include <string.h>

#include "perf/gate/gate_reporter.h"
#include "perf/gate/report.h"

static int write_table(FILE *out, const gate_report *r, char *err, size_t errlen) {
  (void)err, (void)errlen;
  const comparison *c = r->c;
  const char *const *notes = r->notes;
  size_t n = r->n;
  size_t w = strlen("Benchmark");
  for (size_t i = 0; i < n; i++)
    if (strlen(c[i].name) > w) w = strlen(c[i].name);
  fprintf(out, "Comparison on %s (delta: positive is slower)\n", metric_words(r->policy->metric));
  fprintf(out, "%-*s %12s %12s %8s %8s %8s %9s %9s %-26s  %-8s\n", (int)w, "Benchmark", "Base(us)", "New(us)", "Delta",
          "Allowed", "p", "New GB/s", "of copy", "Contexts/samples base vs new", "Verdict");
  for (size_t i = 0; i < n; i++) {
    const comparison *x = &c[i];
    char base[32] = "-", now[32] = "-", delta[32] = "-", allowed[32] = "-", gbps[32] = "-", frac[32] = "-", p[32] = "-",
         evidence[192];
    evidence_text(x, evidence, sizeof evidence);
    if (has_base(x)) snprintf(base, sizeof base, "%.3f", x->base_ns / 1e3);
    if (has_run(x)) {
      snprintf(now, sizeof now, "%.3f", x->run_ns / 1e3);
      snprintf(gbps, sizeof gbps, "%.1f", x->run_gbps);
      if (x->run_copy_frac > 0) snprintf(frac, sizeof frac, "%.1f%%", 100 * x->run_copy_frac);
    }
    if (has_delta(x)) {
      snprintf(delta, sizeof delta, "%+.2f%%", 100 * x->delta);
      snprintf(allowed, sizeof allowed, "%.1f%%", 100 * x->threshold);
      snprintf(p, sizeof p, "%.2g", x->delta >= 0 ? x->p_slower : x->p_faster);
    }
    char why[512];
    verdict_reason(x, r->policy, why, sizeof why);
    fprintf(out, "%-*s %12s %12s %8s %8s %8s %9s %9s %-26s  %s%s%s\n", (int)w, x->name, base, now, delta, allowed, p,
            gbps, frac, evidence, why, notes && notes[i] ? "  " : "", notes && notes[i] ? notes[i] : "");
  }
  return 0;
}

const gate_reporter console_table_reporter = {"table", write_table};
