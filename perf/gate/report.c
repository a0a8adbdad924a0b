/* What the gate's reports share (report.h): the verdict and why in words, the evidence, a failure in one line.
 * The formats are gate_reporter.h's, a file each. */
#include "perf/gate/report.h"

#include <math.h>
#include <string.h>

const char *metric_words(gate_metric m) { return m == METRIC_TIME ? "time" : "time relative to copy"; }

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
    if (c->reasons & REASON_OTHER_GPUS)
      snprintf(buf, len,
               "%s: a library reference, slower by %+.1f%% (allowed %.1f%%, p=%.2g; %s) than the baseline's other "
               "GPUs: this GPU's difference from them or the environment, not this change's kernels; it does not "
               "fail the gate. Runs of this GPU in the baseline would tell (ci/soak.sh 2 on it, then ci/bless.sh "
               "--add soak/round*; docs/gate.md)",
               c->name, 100 * c->delta, 100 * c->threshold, c->p_slower, evidence);
    else
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
  /* Judged against other hosts (a host round trip) or other GPU kinds (reference.h): their difference, up to
   * ~4 % between the H200's GPU kinds, reads as a change. Say what would settle it. */
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

const char *failure_label(const comparison *c) {
  if (verdict_fails(c)) return "REGRESSION";
  return (c->reasons & REASON_OTHER_GPUS) ? "GPU OR ENVIRONMENT" : "ENVIRONMENT CHANGED";
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
        snprintf(buf, len, "slower, a library reference: %+.2f %% (%s); %s, not a failure", d, allowed,
                 (r & REASON_OTHER_GPUS) ? "against other GPUs than this one: their difference or the environment"
                                         : "the environment changed");
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
