#include "perf/gate/report.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* a then b, malloc'ed. */
static char *xstrcat(const char *a, const char *b) {
  char *s = malloc(strlen(a) + strlen(b) + 1);
  if (s) {
    strcpy(s, a);
    strcat(s, b);
  }
  return s;
}

int close_report(FILE *f, const char *path, char *err, size_t errlen) {
  errno = 0;
  int failed = fflush(f) != 0 || ferror(f);
  int e = errno;
  if (fclose(f) != 0 && !failed) {
    failed = 1;
    e = errno;
  }
  if (failed) snprintf(err, errlen, "%s: writing it failed: %s", path, strerror(e ? e : EIO));
  return failed;
}

static const char *metric_name(gate_metric m) { return m == METRIC_TIME ? "time" : "time relative to copy"; }

/* A count of samples in few characters: 950, 12k, 1.2M. */
static void count_text(size_t n, char *buf, size_t len) {
  if (n < 10000)
    snprintf(buf, len, "%zu", n);
  else if (n < 10000000)
    snprintf(buf, len, "%.0fk", n / 1e3);
  else
    snprintf(buf, len, "%.1fM", n / 1e6);
}

/* What stands behind each side: "96 ctx/12k vs 16 ctx/1.6k" (contexts / samples). */
/* Whether c has each side's measures: not for a verdict with no measurement on that side. */
static int has_base(const comparison *c) { return c->v != VERDICT_NEW && c->v != VERDICT_UNCHANGED; }
static int has_run(const comparison *c) { return c->v != VERDICT_MISSING && isfinite(c->run_ns) && c->run_ns > 0; }
static int has_delta(const comparison *c) { return has_base(c) && c->v != VERDICT_MISSING; }
static size_t count_unchanged(const comparison *c, size_t n) {
  size_t k = 0;
  for (size_t i = 0; i < n; i++) k += c[i].v == VERDICT_UNCHANGED;
  return k;
}

void evidence_text(const comparison *c, char *buf, size_t len) {
  char bs[16], rs[16];
  count_text(c->base_samples, bs, sizeof bs);
  count_text(c->run_samples, rs, sizeof rs);
  if (c->v == VERDICT_UNCHANGED) {
    snprintf(buf, len, "A/B vs %s: %s, not measured", c->against ? c->against : "the base",
             c->reasons & REASON_SAME_BINARY ? "the same benchmark binary" : "the same timed work");
    return;
  }
  if (c->v == VERDICT_NEW && (c->reasons & REASON_BASE_LACKS_IT))
    snprintf(buf, len, "new: %s has none of it either", c->against ? c->against : "the base");
  else if (c->v == VERDICT_NEW && c->no_testbed_runs)
    snprintf(buf, len, "new: %zu ctx/%s, no run of this testbed", c->run_contexts, rs);
  else if (c->v == VERDICT_NEW)
    snprintf(buf, len, "new: %zu ctx/%s", c->run_contexts, rs);
  else if (c->v == VERDICT_MISSING)
    snprintf(buf, len, "%zu ctx/%s vs none", c->base_contexts, bs);
  else if (c->against)
    snprintf(buf, len, "A/B vs %s: %zu ctx/%s vs %zu ctx/%s", c->against, c->base_contexts, bs, c->run_contexts, rs);
  else
    snprintf(buf, len, "%zu ctx/%s vs %zu ctx/%s", c->base_contexts, bs, c->run_contexts, rs);
  size_t used = strlen(buf);
  if (c->run_set_aside + c->base_set_aside > 0 && used < len) /* interrupted contexts (compare.h) */
    snprintf(buf + used, len - used, ", set aside %zu/%zu ctx", c->base_set_aside, c->run_set_aside);
  used = strlen(buf);
  /* shown, not taken off (LAUNCH_PROBE_SHOWN_ONLY) */
  if (has_delta(c) && isfinite(c->launch_probe_ns) && used < len)
    snprintf(buf + used, len - used, ", launch probe %+.2f us", c->launch_probe_ns / 1e3);
  used = strlen(buf);
  if ((c->reasons & REASON_FEW_HOST_RUNS) && used < len) {
    snprintf(buf + used, len - used, ", a host round trip over %zu runs: gates from %d", c->base_runs,
             HOST_ROUND_TRIP_MIN_RUNS);
    used = strlen(buf);
  }
  if (has_base(c) && (c->reasons & REASON_NO_TESTBED) && used < len) {
    snprintf(buf + used, len - used, ", every testbed (the run names none)");
    used = strlen(buf);
  }
  if (has_base(c) && used < len) { /* which runs the baseline's side is (compare.h) */
    if (c->against)
      snprintf(buf + used, len - used, ", %zu base processes", c->base_runs);
    else if (c->own_gpu)
      snprintf(buf + used, len - used, ", this GPU's %zu runs", c->base_runs);
    else if (c->host_round_trip)
      snprintf(buf + used, len - used, ", %zu runs of %zu GPU%s, a host round trip", c->base_runs, c->base_gpus,
               c->base_gpus == 1 ? "" : "s");
    else if (c->same_kind)
      snprintf(buf + used, len - used, ", %zu runs of %zu GPUs of its kind", c->base_runs, c->base_gpus);
    else
      snprintf(buf + used, len - used, ", %zu runs of %zu GPU%s, %zu of its kind", c->base_runs, c->base_gpus,
               c->base_gpus == 1 ? "" : "s", c->kind_gpus);
  }
}

void failure_message(const comparison *c, char *buf, size_t len) {
  if (c->v == VERDICT_MISSING) {
    snprintf(buf, len,
             "%s: in the baseline (%.4g us) but not measured in this run: removed or renamed? "
             "Re-bless the baseline if intended",
             c->name, c->base_ns / 1e3);
    return;
  }
  char evidence[192];
  evidence_text(c, evidence, sizeof evidence);
  if (c->v == VERDICT_SLOWER && c->library_reference) {
    snprintf(buf, len,
             "%s: a library reference, slower by %+.1f%% (allowed %.1f%%, p=%.2g; %s): the environment "
             "changed (driver, library, clocks or host), not this change's kernels; it does not fail the gate",
             c->name, 100 * c->delta, 100 * c->threshold, c->p_slower, evidence);
    return;
  }
  snprintf(buf, len,
           "%s: %s by %+.1f%% (baseline %.4g us = %.1f GB/s, now %.4g us = %.1f GB/s; allowed %.1f%%, "
           "baseline noise %.1f%%, p=%.2g on contexts: %s)",
           c->name, c->v == VERDICT_SLOWER ? "slower" : verdict_name(c->v), 100 * c->delta, c->base_ns / 1e3,
           c->base_gbps, c->run_ns / 1e3, c->run_gbps, 100 * c->threshold, 100 * c->noise, c->p_slower, evidence);
  size_t used = strlen(buf);
  /* Judged against other kinds of host (compare.h): their difference, up to ~4 % on the H200s,
   * reads as a change. Say what would settle it. */
  if (c->v == VERDICT_SLOWER && reference_of(c) == REF_EVERY_HOST && used < len)
    snprintf(buf + used, len - used,
             ". Its time includes a host round trip, which differs from host to host: if this change did not "
             "touch it, bring this runner into the baseline (ci/soak.sh 2 on it, then ci/bless.sh --add "
             "soak/round*; docs/gate.md)");
  else if (c->v == VERDICT_SLOWER && reference_of(c) >= REF_ALL_GPUS && used < len)
    /* On a host blessed in, ci/soak.sh put this family on its other GPUs: more rounds spread it. */
    snprintf(buf + used, len - used,
             ". Judged against other kinds of this GPU model (%zu GPU%s of its kind in the baseline%s): if this "
             "change did not touch the kernel, %s (ci/soak.sh 2 on it, then ci/bless.sh --add soak/round*; "
             "docs/gate.md)",
             c->kind_gpus, c->kind_gpus == 1 ? "" : "s", c->testbed && c->testbed[0] ? " of this testbed" : "",
             c->testbed && c->testbed[0] ? "bless more rounds of this host in, so that this GPU has runs of its own"
                                         : "bring this runner into the baseline");
}

/* What the allowed threshold came from, for verdict_reason. */
static void allowed_text(const comparison *c, const gate_policy *p, char *buf, size_t len) {
  double tol = tolerance_for(p, c->name, c->own_gpu);
  if (c->threshold > tol * (1 + 1e-9))
    snprintf(buf, len, "%.1f %% allowed: %g x the baseline's noise of %.2f %%", 100 * c->threshold, p->k_noise,
             100 * c->noise);
  else
    snprintf(buf, len, "%.1f %% allowed: the %s", 100 * c->threshold,
             c->against       ? "tolerance of A/B on one GPU"
                 : c->own_gpu ? "tolerance against this GPU's own runs"
                              : "tolerance");
}

void verdict_reason(const comparison *c, const gate_policy *p, char *buf, size_t len) {
  char allowed[160];
  allowed_text(c, p, allowed, sizeof allowed);
  double d = 100 * c->delta, pv = c->delta >= 0 ? c->p_slower : c->p_faster, us = fabs(c->run_ns - c->base_ns) / 1e3;
  unsigned r = c->reasons;
  switch (c->v) {
    case VERDICT_NEW:
      snprintf(buf, len, "new: %s",
               (r & REASON_BASE_LACKS_IT) ? "neither the baseline nor the base revision has it"
                   : c->no_testbed_runs   ? "the baseline has no run of it on this testbed: not judged"
                                          : "not in the baseline: not judged");
      return;
    case VERDICT_UNCHANGED:
      snprintf(
          buf, len, "unchanged: %s as the base revision, so not measured",
          (r & REASON_SAME_BINARY) ? "the same benchmark binary" : "the same timed work (kernels, launches, copies)");
      return;
    case VERDICT_MISSING: snprintf(buf, len, "missing: the baseline has it, this run did not measure it"); return;
    case VERDICT_SLOWER:
      if (c->library_reference) {
        snprintf(buf, len, "slower, a library reference: %+.2f %% (%s); the environment changed, not a failure", d,
                 allowed);
        return;
      }
      snprintf(buf, len, "slower: %+.2f %% > %s; p %.2g < %g; +%.2f us > the %.2f us floor%s", d, allowed, pv, p->alpha,
               us, p->min_delta_ns / 1e3, (r & REASON_CONFIRMED) ? "; confirmed in a fresh process" : "");
      return;
    case VERDICT_FASTER:
      snprintf(buf, len, "faster: %+.2f %% beyond %s; p %.2g < %g", d, allowed, pv, p->alpha);
      return;
    default: break;
  }
  if (r & REASON_FEW_HOST_RUNS)
    snprintf(buf, len,
             "same: %+.2f %% (%s), but a host round trip gates from %d runs of its testbed and this one "
             "has %zu",
             d, allowed, HOST_ROUND_TRIP_MIN_RUNS, c->base_runs);
  else if (r & REASON_NOT_CONFIRMED)
    snprintf(buf, len, "same: it read slower at first, and the re-measure in a fresh process did not");
  else if (!(r & REASON_BEYOND_THRESHOLD))
    snprintf(buf, len, "same: %+.2f %% is within the %s", d, allowed);
  else if (!(r & REASON_SIGNIFICANT))
    snprintf(buf, len, "same: %+.2f %% is beyond the %s, but p %.2g is not below %g: chance can make it", d, allowed,
             pv, p->alpha);
  else if (!(r & REASON_ABOVE_FLOOR))
    snprintf(buf, len, "same: %+.2f %% is beyond the %s, but %.2f us is under the %.2f us floor", d, allowed, us,
             p->min_delta_ns / 1e3);
  else
    snprintf(buf, len, "same: %+.2f %%", d);
}

void print_table(FILE *out, const comparison *c, size_t n, const char *const *notes, const gate_policy *policy) {
  size_t w = strlen("Benchmark");
  for (size_t i = 0; i < n; i++)
    if (strlen(c[i].name) > w) w = strlen(c[i].name);
  fprintf(out, "Comparison on %s (delta: positive is slower)\n", metric_name(policy->metric));
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
    verdict_reason(x, policy, why, sizeof why);
    fprintf(out, "%-*s %12s %12s %8s %8s %8s %9s %9s %-26s  %s%s%s\n", (int)w, x->name, base, now, delta, allowed, p,
            gbps, frac, evidence, why, notes && notes[i] ? "  " : "", notes && notes[i] ? notes[i] : "");
  }
}

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

void write_reference_summary(FILE *out, const comparison *c, size_t n) {
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

void write_markdown(FILE *out, const char *title, const comparison *c, size_t n, const char *const *notes,
                    const gate_policy *policy) {
  size_t slower = 0, faster = 0, missing = 0, added = 0, environment = 0, failing = 0;
  for (size_t i = 0; i < n; i++) {
    failing += verdict_fails(&c[i]);
    environment += c[i].v == VERDICT_SLOWER && c[i].library_reference;
    slower += c[i].v == VERDICT_SLOWER && !c[i].library_reference;
    faster += c[i].v == VERDICT_FASTER;
    missing += c[i].v == VERDICT_MISSING;
    added += c[i].v == VERDICT_NEW;
  }
  fprintf(out, "## %s: %s\n\n", title, failing ? "FAILED" : "passed");
  if (environment) {
    fprintf(out, "**Environment changed:** ");
    for (size_t i = 0, k = 0; i < n; i++)
      if (c[i].v == VERDICT_SLOWER && c[i].library_reference)
        fprintf(out, "%s`%s` %+.2f%% (allowed %.1f%%)", k++ ? ", " : "", c[i].name, 100 * c[i].delta,
                100 * c[i].threshold);
    fprintf(out,
            ": library references run slower than their baseline. Their code is not this change's, so this "
            "does not fail the gate; it says the driver, a library, the clocks or the host changed.\n\n");
  }
  if (n && c[0].testbed && c[0].testbed[0])
    fprintf(out, "Testbed: `%s`; the baseline's side is its runs alone.\n\n", c[0].testbed);
  fprintf(out, "%zu benchmarks: %zu slower, %zu faster, %zu new, %zu missing, %zu unchanged (gated on %s).\n\n", n,
          slower, faster, added, missing, count_unchanged(c, n), metric_name(policy->metric));
  write_reference_summary(out, c, n);
  fprintf(out,
          "Delta: the run's mean of context medians against the median of the baseline's runs: of this GPU's "
          "own runs when the baseline holds two or more (\"this GPU's N runs\"), else of its "
          "GPUs whose copy probe is within %.1f %% of this run's, when there are two or more (\"N runs of M "
          "GPUs of its kind\"), else of all its GPUs (\"N runs of M GPUs, K of its kind\": too few of its kind "
          "have run it, so a difference of kinds can look like a change; bless this runner in), or of all its "
          "GPUs for a benchmark whose time includes a host round trip (\"N runs of M GPUs, a host round trip\": "
          "set by the host, not the GPU's kind). p: one-sided "
          "test on the contexts' medians (%s). Times are as measured. Evidence: contexts/samples, baseline vs "
          "new; \"launch probe\": how much longer this run's empty kernel took than the baseline's, for "
          "reading only.\n\n",
          100 * KIND_COPY_WINDOW, "slower for a positive delta, faster for a negative one");
  fprintf(out,
          "| Benchmark | Baseline (us) | New (us) | Delta | Allowed | p | GB/s | of copy | Evidence | Verdict |\n");
  fprintf(out, "|---|---:|---:|---:|---:|---:|---:|---:|---|---|\n");
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
    verdict_reason(x, policy, why, sizeof why);
    const char *colon = strchr(why, ':');
    size_t head = colon ? (size_t)(colon - why) : strlen(why); /* "slower", the word a reader scans for */
    fprintf(out, "%s%.*s%s", verdict_fails(x) ? "**" : "", (int)head, why, verdict_fails(x) ? "**" : "");
    md_cell(out, why + head);
    if (*note) fputc(' ', out);
    md_cell(out, note);
    fputs(" |\n", out);
  }
}

static void xml_escaped(FILE *out, const char *s) {
  for (; *s; s++) {
    switch (*s) {
      case '<': fputs("&lt;", out); break;
      case '>': fputs("&gt;", out); break;
      case '&': fputs("&amp;", out); break;
      case '"': fputs("&quot;", out); break;
      default: fputc(*s, out);
    }
  }
}

void write_junit(FILE *out, const char *suite, const comparison *c, size_t n, const char *const *notes) {
  size_t failures = 0;
  for (size_t i = 0; i < n; i++) failures += verdict_fails(&c[i]);
  fprintf(out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites>\n");
  fprintf(out, "  <testsuite name=\"");
  xml_escaped(out, suite);
  fprintf(out, "\" tests=\"%zu\" failures=\"%zu\" errors=\"0\">\n", n, failures);
  for (size_t i = 0; i < n; i++) {
    fprintf(out, "    <testcase classname=\"");
    xml_escaped(out, suite);
    fprintf(out, "\" name=\"");
    xml_escaped(out, c[i].name);
    fprintf(out, "\" time=\"%.9f\">", c[i].run_ns / 1e9);
    char msg[1024];
    failure_message(&c[i], msg, sizeof msg);
    if (verdict_fails(&c[i])) {
      fprintf(out, "<failure message=\"");
      xml_escaped(out, msg);
      fprintf(out, "\"/>");
    } else {
      fprintf(out, "<system-out>");
      xml_escaped(out, verdict_name(c[i].v));
      if (has_delta(&c[i])) fprintf(out, " %+.2f%%", 100 * c[i].delta);
      if (notes && notes[i]) {
        fputc(' ', out);
        xml_escaped(out, notes[i]);
      }
      fprintf(out, "</system-out>");
    }
    fprintf(out, "</testcase>\n");
  }
  fprintf(out, "  </testsuite>\n</testsuites>\n");
}

/* One verdict; NULL when a figure is not finite (jansson cannot write it). */
static json_t *verdict_json(const comparison *c) {
  char reasons[256];
  reason_names(c->reasons, reasons, sizeof reasons);
  json_t *why = json_array();
  for (char *tok = strtok(reasons, ","); tok; tok = strtok(NULL, ",")) json_array_append_new(why, json_string(tok));
  /* What decided it, read from here by the report and the charts, never recomputed: the rule's
   * version, the testbed, the threshold applied (below) and the reasons. */
  json_t *e = json_pack("{s:s, s:s, s:b, s:i, s:o, s:b}", "name", c->name, "verdict", verdict_name(c->v), "fails",
                        verdict_fails(c), "policy_version", GATE_POLICY_VERSION, "reasons", why, "library_reference",
                        c->library_reference);
  int bad = !e;
  if (c->testbed && c->testbed[0]) bad |= !e || json_object_set_new(e, "testbed", json_string(c->testbed));
  bad |= !e ||
      json_object_set_new(e, "compared_with",
                          c->against ? json_sprintf("revision %s", c->against) : json_string("baseline"));
  if (has_base(c)) bad |= !e || json_object_set_new(e, "baseline_ns", json_real(c->base_ns));
  if (has_run(c)) bad |= !e || json_object_set_new(e, "run_ns", json_real(c->run_ns));
  if (has_delta(c)) {
    bad |= !e || json_object_set_new(e, "delta", json_real(c->delta));
    bad |= !e || json_object_set_new(e, "threshold", json_real(c->threshold));
    bad |= !e || json_object_set_new(e, "baseline_noise", json_real(c->noise));
    bad |= !e || json_object_set_new(e, "p_slower", json_real(c->p_slower));
    bad |= !e || json_object_set_new(e, "p_faster", json_real(c->p_faster));
    if (isfinite(c->launch_probe_ns))
      bad |= !e || json_object_set_new(e, "launch_probe_ns", json_real(c->launch_probe_ns));
  }
  if (has_base(c)) {
    static const char *const kReference[] = {"this_gpu", "same_kind", "all_gpus", "all_gpus", "all_gpus"};
    bad |= !e ||
        json_object_set_new(e, "reference", json_string(c->against ? "base_revision" : kReference[reference_of(c)]));
    bad |= !e || json_object_set_new(e, "baseline_gpus", json_integer((json_int_t)c->base_gpus));
    if (!c->own_gpu) bad |= !e || json_object_set_new(e, "kind_gpus", json_integer((json_int_t)c->kind_gpus));
    bad |= !e || json_object_set_new(e, "baseline_runs", json_integer((json_int_t)c->base_runs));
    bad |= !e || json_object_set_new(e, "baseline_contexts", json_integer((json_int_t)c->base_contexts));
    bad |= !e || json_object_set_new(e, "baseline_samples", json_integer((json_int_t)c->base_samples));
    bad |= !e || json_object_set_new(e, "baseline_contexts_set_aside", json_integer((json_int_t)c->base_set_aside));
  }
  if (has_run(c)) {
    bad |= !e || json_object_set_new(e, "run_contexts", json_integer((json_int_t)c->run_contexts));
    bad |= !e || json_object_set_new(e, "run_samples", json_integer((json_int_t)c->run_samples));
    bad |= !e || json_object_set_new(e, "run_contexts_set_aside", json_integer((json_int_t)c->run_set_aside));
  }
  if (bad) {
    json_decref(e);
    return NULL;
  }
  return e;
}

int write_verdicts_json(const char *path, const gate_figures *run, const comparison *c, size_t n, gate_metric metric,
                        const char *compared_with, char *err, size_t errlen) {
  json_t *a = json_array();
  for (size_t i = 0; i < n; i++)
    if (json_array_append_new(a, verdict_json(&c[i])) != 0) {
      json_decref(a);
      snprintf(err, errlen, "%s: not written: %s: a figure of its verdict is not finite", path, c[i].name);
      return 1;
    }
  const gate_run_info *info = &run->runs[0];
  json_t *root =
      json_pack("{s:s, s:{s:s, s:s}, s:{s:s, s:s, s:s}, s:o}", "metric", metric == METRIC_TIME ? "time" : "copy_ratio",
                "gpu", "name", run->gpu.name, "uuid", info->gpu_uuid, "run", "date", info->date, "host", info->host,
                "commit", info->commit, "verdicts", a);
  char *with = compared_with ? xstrcat("revision ", compared_with) : NULL;
  if (root &&
      (json_object_set_new(root, "compared_with", json_string(with ? with : "baseline")) != 0 ||
       json_object_set_new(root, "policy_version", json_integer(GATE_POLICY_VERSION)) != 0 ||
       json_object_set_new(root, "testbed", json_string(testbed_of(run))) != 0)) {
    json_decref(root);
    root = NULL;
  }
  free(with);
  if (!root) {
    snprintf(err, errlen, "%s: not written: could not build the JSON document", path);
    return 1;
  }
  char *text = json_dumps(root, JSON_INDENT(1));
  json_decref(root);
  if (!text) {
    snprintf(err, errlen, "%s: not written: could not build the JSON text (out of memory?)", path);
    return 1;
  }
  FILE *f = fopen(path, "w");
  if (!f) {
    snprintf(err, errlen, "%s: cannot write it: %s", path, strerror(errno));
    free(text);
    return 1;
  }
  fputs(text, f);
  free(text);
  return close_report(f, path, err, errlen);
}
