/* The verdicts.json reporter (gate_reporter.h): {"metric", "gpu": {"name", "uuid"}, "run": {"date", "host",
 * "commit"}, "verdicts": [...], "compared_with", "policy_version", "testbed"}; gpu and run are those of the
 * run judged (its first measurement), so that a verdicts file names what it judged. Each verdict holds what
 * decided it (the rule's version, the threshold, the reasons), which `gate history` and the renderer read
 * back and never recompute. Nothing is written when a figure is not finite (jansson cannot write it). */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "perf/gate/gate_reporter.h"
#include "perf/gate/report.h"

/* a then b, malloc'ed. */
static char *xstrcat(const char *a, const char *b) {
  char *s = malloc(strlen(a) + strlen(b) + 1);
  if (s) {
    strcpy(s, a);
    strcat(s, b);
  }
  return s;
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

static int write_verdicts(FILE *out, const gate_report *r, char *err, size_t errlen) {
  const gate_figures *run = r->run;
  const comparison *c = r->c;
  size_t n = r->n;
  const char *compared_with = r->against;
  gate_metric metric = r->policy->metric;
  if (!run) {
    snprintf(err, errlen, "nothing was measured, so no run to name");
    return 1;
  }
  json_t *a = json_array();
  for (size_t i = 0; i < n; i++)
    if (json_array_append_new(a, verdict_json(&c[i])) != 0) {
      json_decref(a);
      snprintf(err, errlen, "%s: a figure of its verdict is not finite", c[i].name);
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
    snprintf(err, errlen, "could not build the JSON document");
    return 1;
  }
  char *text = json_dumps(root, JSON_INDENT(1));
  json_decref(root);
  if (!text) {
    snprintf(err, errlen, "could not build the JSON text (out of memory?)");
    return 1;
  }
  fputs(text, out);
  free(text);
  return 0;
}

const gate_reporter verdicts_json_reporter = {"verdicts.json", write_verdicts};
