/* What a gate check leaves behind (check.c, ab.c, compare_cmd.c): the confirmation of slower verdicts by a re-measure,
 * its reports through gate_reporter.h (summary.md, verdicts.json and the JUnit XML) or a summary.md that says it was
 * NOT JUDGED, and the failures, a run with nothing in the baseline and a --family_tolerance of no family said on
 * stderr. */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "perf/gate/gate_cli.h"
#include "perf/gate/gate_reporter.h"
#include "perf/gate/report.h"

void confirm_slower(const gate_figures *family_base, const gate_figures *again, const gate_policy *policy,
                    comparison *c, size_t n, char **notes) {
  comparison *c2;
  size_t n2 = compare_figures(family_base, again, policy, &c2);
  for (size_t i = 0; i < n; i++) {
    if (c[i].v != VERDICT_SLOWER) continue;
    int found = 0;
    for (size_t j = 0; j < n2 && !found; j++) {
      if (strcmp(c2[j].name, c[i].name) != 0 || c2[j].v == VERDICT_MISSING) continue;
      found = 1;
      if (c2[j].v == VERDICT_SLOWER) {
        notes[i] = xasprintf("(confirmed: first %+.2f%%, re-measured %+.2f%%)", 100 * c[i].delta, 100 * c2[j].delta);
        c[i] = c2[j]; /* report the re-measured figures */
        c[i].reasons |= REASON_CONFIRMED;
      } else {
        notes[i] =
            xasprintf("(first %+.2f%%, not confirmed: re-measured %+.2f%%)", 100 * c[i].delta, 100 * c2[j].delta);
        c[i].v = VERDICT_SAME;
        c[i].reasons = (c[i].reasons & ~REASON_LIBRARY_REFERENCE) | REASON_NOT_CONFIRMED;
      }
      c[i].name = strdup(c[i].name);
    }
    /* Only when re-judging (gate compare --recheck): the re-measure did not include it. */
    if (!found) notes[i] = xasprintf("(not in the re-measure: unconfirmed)");
  }
}

gate_report report_of(const options *o, const char *bench_name, const gate_figures *run, const comparison *c, size_t n,
                      const char *const *notes) {
  return (gate_report){.c = c,
                       .n = n,
                       .notes = notes,
                       .policy = &o->policy,
                       .bench_name = bench_name,
                       .run = run,
                       .against = o->against,
                       .preface = o->summary_note};
}

/* One report to path: 0 when written, else 1 after saying why. */
static int write_one(const gate_reporter *rep, const gate_report *r, const char *path) {
  char err[1024];
  if (write_report_file(rep, r, path, err, sizeof err) == 0) return 0;
  fprintf(stderr, "gate: %s\n", err);
  return 1;
}

int write_reports(const char *out_dir, const gate_report *r) {
  char summary[4200], verdicts[4200];
  format_path(summary, sizeof summary, "%s/summary.md", out_dir);
  format_path(verdicts, sizeof verdicts, "%s/verdicts.json", out_dir);
  int failed = 0;
  /* verdicts.json first, the rest only after it: a summary.md saying "passed" must not stand without its verdicts.
   * Nothing measured (A/B, every benchmark unchanged or new): no run names the GPU and date that verdicts.json and
   * the history need; summary.md and the JUnit XML say what was judged. */
  if (r->run) failed += write_one(&verdicts_json_reporter, r, verdicts);
  if (!failed) failed += write_one(&summary_md_reporter, r, summary);
  const char *xml = getenv("XML_OUTPUT_FILE");
  if (!failed && xml && *xml) failed += write_one(&junit_reporter, r, xml);
  if (failed) { /* a failed command leaves no report that reads as its result */
    remove_stale(out_dir, "verdicts.json");
    remove_stale(out_dir, "summary.md");
    fprintf(stderr, "gate: neither %s nor %s is left: this run's reports would be incomplete\n", verdicts, summary);
  }
  return failed;
}

char *nothing_in_baseline(const comparison *c, size_t n, const char *base_path, const char *bench_name, int md,
                          int strict) {
  if (n == 0 || count_verdicts(c, n, VERDICT_NEW) != n) return NULL;
  for (size_t i = 0; i < n; i++)
    if (c[i].no_testbed_runs) return NULL;
  char families[512] = "";
  size_t nfam = 0, used = 0;
  for (size_t i = 0; i < n; i++) { /* the distinct families, "a|b" */
    size_t len = strcspn(c[i].name, "/");
    int seen = 0;
    for (size_t j = 0; j < i && !seen; j++) seen = strncmp(c[j].name, c[i].name, len) == 0 && c[j].name[len] == '/';
    if (seen || used + len + 2 >= sizeof families) continue;
    used += (size_t)snprintf(families + used, sizeof families - used, "%s%.*s", nfam++ ? "|" : "", (int)len, c[i].name);
  }
  const char *bold = md ? "**" : "", *code = md ? "`" : "";
  return xasprintf(
      "%sWARNING: none of %s's %zu benchmarks (family %s) is in the baseline %s: all are new, nothing "
      "was compared.%s A new family: bless it in with several runs, %sci/bless.sh --only='^%s%s%s/' "
      "ARTIFACTS_DIR...%s; a renamed family: re-bless it under its new name the same way. %s",
      bold, bench_name, n, families, base_path, bold, code, nfam > 1 ? "(" : "", families, nfam > 1 ? ")" : "", code,
      strict ? "With --strict this fails." : "With --strict it would fail.");
}

void write_summary_note(const char *out_dir, const char *fmt, ...) {
  char path[4200], err[1024], *text;
  format_path(path, sizeof path, "%s/summary.md", out_dir);
  va_list ap;
  va_start(ap, fmt);
  int n = vasprintf(&text, fmt, ap);
  va_end(ap);
  if (n < 0) {
    fprintf(stderr, "gate: out of memory\n");
    exit(EXIT_BAD_INPUT);
  }
  if (write_report_text(path, text, err, sizeof err)) {
    fprintf(stderr, "gate: %s\n", err);
    exit(EXIT_BAD_INPUT);
  }
  free(text);
}

int no_runs_of_testbed(const gate_figures *family_base, const gate_figures *run) {
  return family_base->nruns > 0 && !has_testbed_runs(family_base, testbed_of(run), NULL); /* none: a new family */
}

int no_testbed_runs(const options *o, const char *base_path, const gate_figures *run, const char *out_dir,
                    const char *bench_name) {
  const char *testbed = testbed_of(run),
             *strict = o->strict ? "With --strict this fails." : "With --strict it would fail.";
  /* The summary says it too: the report and the job's summary.md are where people look. No verdicts.json: nothing
   * was judged (gate compare's --out_dir may hold an earlier one). */
  if (out_dir) {
    remove_stale(out_dir, "verdicts.json");
    write_summary_note(out_dir,
                       "## %s on %s: NOT JUDGED (no baseline of this testbed, no base revision)\n\nTestbed `%s`: `%s` "
                       "has no run of it, and runs of other hosts never stand in. `ci/gate.sh` A/B-tests such a runner "
                       "against its merge base; to gate it against a baseline, bless the host in (`ci/soak.sh 2`, then "
                       "`ci/bless.sh --add soak/round*`). %s\n",
                       bench_name, run->gpu.name, testbed, base_path, strict);
  }
  fprintf(stderr,
          "\n*** NOT JUDGED: %s has no run of this testbed, '%s', and no base revision was given: nothing was "
          "compared (runs of other hosts never stand in: docs/gate.md). %s ***\n"
          "*** ci/gate.sh measures such a runner against its merge base instead (A/B on this GPU: ci/gate.sh "
          "--against=REV); to gate it against a baseline, bless the host in: ci/soak.sh 2, then "
          "ci/bless.sh --add soak/round*. ***\n\n",
          base_path, testbed, strict);
  return o->strict ? EXIT_REGRESSION : EXIT_PASS;
}

int report_failures(const comparison *c, size_t n) {
  int bad = 0;
  for (size_t i = 0; i < n; i++) {
    if (c[i].v != VERDICT_SLOWER && c[i].v != VERDICT_MISSING) continue;
    char msg[1024];
    failure_message(&c[i], msg, sizeof msg);
    fprintf(stderr, "%s %s\n", failure_label(&c[i]), msg);
    bad |= verdict_fails(&c[i]);
  }
  return bad;
}

/* 1 when f has a benchmark of family fam. */
static int has_family(const gate_figures *f, const char *fam) {
  size_t len = strlen(fam);
  for (size_t i = 0; i < f->n; i++)
    if (strcspn(f->b[i].name, "/") == len && strncmp(f->b[i].name, fam, len) == 0) return 1;
  return 0;
}

void warn_unknown_families(const gate_policy *p, const gate_figures *run, const gate_figures *base,
                           const baseline_place *pl) {
  for (size_t i = 0; i < p->nfam; i++) {
    const char *fam = p->fam[i].family;
    char path[4400];
    format_path(path, sizeof path, "%s/%s.json", pl->path, fam);
    if (has_family(run, fam) || (pl->per_family ? file_exists(path) : has_family(base, fam))) continue;
    fprintf(stderr,
            "gate: warning: --family_tolerance=%s=%g: neither the run nor the baseline %s has a benchmark of family "
            "'%s', so it applies to nothing here: a typo, or a family not blessed on this GPU yet? (a benchmark's "
            "family is its name up to the first '/')\n",
            fam, p->fam[i].tolerance, pl->path, fam);
  }
}
