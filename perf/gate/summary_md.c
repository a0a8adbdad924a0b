/* The summary.md reporter (gate_reporter.h): the job summary of a check, in GitHub's markdown. Its title says
 * whether the check passed; then library references that ran slower (against this GPU's own runs: the environment
 * changed; against other GPUs: their difference or the environment), the counts of
 * each verdict, which reference judged them, a legend of the columns (verdict_fields.h) and a table row per
 * benchmark, its verdict and why. ci/soak.sh --summarize reads the table's columns by their headers. */
#include <stdio.h>
#include <string.h>

#include "perf/gate/gate_reporter.h"
#include "perf/gate/report.h"
#include "perf/gate/verdict_fields.h"

/* Text in a cell of a markdown table: a '|' would end the cell (and shift every later column of
 * the row, as ci/soak.sh --summarize reads them), so it is written '\|', which GitHub's tables
 * show as '|', in code spans too. */
static void md_cell(FILE *out, const char *s) {
  for (; *s; s++) {
    if (*s == '|') fputc('\\', out);
    fputc(*s, out);
  }
}

/* The names of the verdicts that `pick` selects, as `a`, `b`, ... */
static void name_list(FILE *out, const comparison *c, size_t n, int (*pick)(const comparison *)) {
  for (size_t i = 0, k = 0; i < n; i++)
    if (pick(&c[i])) {
      fputs(k++ ? ", `" : " (`", out);
      md_cell(out, c[i].name);
      fputs("`", out);
    }
  fputs(")", out);
}
static int by_baseline(const comparison *c) { return !c->against && c->v != VERDICT_NEW; }
static int ab_measured(const comparison *c) { return c->against && c->v != VERDICT_NEW && c->v != VERDICT_UNCHANGED; }
static int ab_unchanged(const comparison *c) { return c->v == VERDICT_UNCHANGED; }
static int new_here(const comparison *c) { return c->v == VERDICT_NEW; }
static int kinds_differ(const comparison *c) { return (c->reasons & REASON_OTHER_KINDS_DIFFER) != 0; }

/* The slower library references, `name` +d% (allowed t%), ...: those judged against other GPUs than this one
 * (REASON_OTHER_GPUS), or against its own runs. */
static void slower_references(FILE *out, const comparison *c, size_t n, int other_gpus) {
  for (size_t i = 0, k = 0; i < n; i++)
    if (c[i].v == VERDICT_SLOWER && c[i].library_reference && ((c[i].reasons & REASON_OTHER_GPUS) != 0) == other_gpus) {
      fprintf(out, "%s`", k++ ? ", " : "");
      md_cell(out, c[i].name);
      fprintf(out, "` %+.2f%% (allowed %.1f%%)", 100 * c[i].delta, 100 * c[i].threshold);
    }
}

/* One paragraph: how many benchmarks each reference judged (the baseline's runs of this testbed, A/B against
 * the base revision: measured or unchanged, none: new), naming the A/B-measured and new ones. */
static void write_reference_summary(FILE *out, const comparison *c, size_t n) {
  size_t baseline = 0, measured = 0, unchanged = 0, added = 0;
  const char *against = NULL;
  for (size_t i = 0; i < n; i++) {
    baseline += by_baseline(&c[i]);
    measured += ab_measured(&c[i]);
    unchanged += ab_unchanged(&c[i]);
    added += new_here(&c[i]);
    if (c[i].against) against = c[i].against;
  }
  fprintf(out, "Judged: %zu against the baseline's runs of this testbed", baseline);
  if (against) {
    fprintf(out, "; %zu A/B against %s on this GPU: %zu measured", measured + unchanged, against, measured);
    if (measured) name_list(out, c, n, ab_measured);
    fprintf(out, ", %zu unchanged (the same timed work, not measured)", unchanged);
    size_t kinds = 0;
    for (size_t i = 0; i < n; i++) kinds += kinds_differ(&c[i]);
    if (kinds) {
      fprintf(out, "; %zu of them because only the baseline's other kinds of GPU read them slower or faster", kinds);
      name_list(out, c, n, kinds_differ);
    }
  }
  fprintf(out, "; %zu new", added);
  if (added) {
    name_list(out, c, n, new_here);
    fprintf(out, ", %s", against ? "which the base revision lacks too" : "not judged");
  }
  fprintf(out, ".\n\n");
}

static int write_markdown(FILE *out, const gate_report *r, char *err, size_t errlen) {
  (void)err, (void)errlen;
  const comparison *c = r->c;
  const char *const *notes = r->notes;
  size_t n = r->n;
  if (r->preface) fprintf(out, "%s\n\n", r->preface);
  const char *gpu = r->run ? r->run->gpu.name : "this GPU";
  size_t slower = 0, faster = 0, missing = 0, added = 0, unchanged = 0, environment = 0, other_gpus = 0, failing = 0;
  for (size_t i = 0; i < n; i++) {
    failing += verdict_fails(&c[i]);
    environment += c[i].v == VERDICT_SLOWER && c[i].library_reference;
    other_gpus += c[i].v == VERDICT_SLOWER && c[i].library_reference && (c[i].reasons & REASON_OTHER_GPUS);
    slower += c[i].v == VERDICT_SLOWER && !c[i].library_reference;
    faster += c[i].v == VERDICT_FASTER;
    missing += c[i].v == VERDICT_MISSING;
    added += c[i].v == VERDICT_NEW;
    unchanged += c[i].v == VERDICT_UNCHANGED;
  }
  fprintf(out, "## %s on %s%s%s: %s\n\n", r->bench_name, gpu, r->against ? ", A/B against " : "",
          r->against ? r->against : "", failing ? "FAILED" : "passed");
  if (environment - other_gpus) {
    fprintf(out, "**Environment changed:** ");
    slower_references(out, c, n, 0);
    fprintf(out,
            ": library references run slower than their baseline. Their code is not this change's, so this "
            "does not fail the gate; it says the driver, a library, the clocks or the host changed.\n\n");
  }
  if (other_gpus) {
    fprintf(out, "**Library references slower than the baseline's other GPUs:** ");
    slower_references(out, c, n, 1);
    fprintf(out,
            ": the baseline has fewer than 2 runs of this GPU, and GPUs differ, even of one GPU kind (a library's "
            "compute-bound kernel runs at the power cap), so this is their difference or the environment. It does "
            "not fail the gate; runs of this GPU in the baseline would tell (ci/soak.sh 2 on it, then ci/bless.sh "
            "--add soak/round*).\n\n");
  }
  if (n && c[0].testbed && c[0].testbed[0])
    fprintf(out, "Testbed: `%s`; the baseline's side is its runs alone.\n\n", c[0].testbed);
  fprintf(out, "%zu benchmarks: %zu slower, %zu faster, %zu new, %zu missing, %zu unchanged (gated on %s).\n\n", n,
          slower, faster, added, missing, unchanged, metric_words(r->policy->metric));
  write_reference_summary(out, c, n);
  /* The legend and the columns' headers: verdict_fields.c, which the HTML report's legend prints from too. */
  static const field_id kLegend[] = {FIELD_DELTA, FIELD_P, FIELD_TIMES, FIELD_EVIDENCE};
  char legend[4096];
  field_legend(kLegend, sizeof kLegend / sizeof *kLegend, legend, sizeof legend);
  fprintf(out, "%s\n\n", legend);
  for (int f = 0; f < FIELD_COLUMNS; f++) fprintf(out, "| %s ", verdict_fields[f].header);
  fputs("|\n", out);
  for (int f = 0; f < FIELD_COLUMNS; f++) fputs(verdict_fields[f].numeric ? "|---:" : "|---", out);
  fputs("|\n", out);
  for (size_t i = 0; i < n; i++) {
    const comparison *x = &c[i];
    fputs("| `", out);
    md_cell(out, x->name);
    fputs("` | ", out);
    if (!has_base(x))
      fprintf(out, "- | ");
    else
      fprintf(out, "%.3f | ", x->base_ns / 1e3);
    char evidence[192];
    evidence_text(x, evidence, sizeof evidence);
    if (!has_run(x))
      fprintf(out, "- | - | - | - | - | - | %s | ", evidence);
    else if (!has_delta(x))
      fprintf(out, "%.3f | - | - | - | %.1f | %.1f%% | %s | ", x->run_ns / 1e3, x->run_gbps, 100 * x->run_copy_frac,
              evidence);
    else
      fprintf(out, "%.3f | %+.2f%% | %.1f%% | %.2g | %.1f | %.1f%% | %s | ", x->run_ns / 1e3, 100 * x->delta,
              100 * x->threshold, x->delta >= 0 ? x->p_slower : x->p_faster, x->run_gbps, 100 * x->run_copy_frac,
              evidence);
    const char *note = notes && notes[i] ? notes[i] : "";
    char why[512];
    verdict_reason(x, r->policy, why, sizeof why);
    const char *colon = strchr(why, ':');
    size_t head = colon ? (size_t)(colon - why) : strlen(why); /* "slower", the word a reader scans for */
    fprintf(out, "%s%.*s%s", verdict_fails(x) ? "**" : "", (int)head, why, verdict_fails(x) ? "**" : "");
    md_cell(out, why + head);
    if (*note) fputc(' ', out);
    md_cell(out, note);
    fputs(" |\n", out);
  }
  return 0;
}

const gate_reporter summary_md_reporter = {"summary.md", write_markdown};
