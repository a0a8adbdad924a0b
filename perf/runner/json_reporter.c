/* The JSON reporter (reporter.h): Google Benchmark's JSON with the GPU's context and each repetition's
 * samples; the run file the gate reads. Its fields, types and meaning: perf/schema/run_schema.c. The
 * entries are built as results arrive and the document is written at the end, the context last of
 * all (the later CUDA contexts add their launch probes to it while the run goes on). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "perf/runner/reporter.h"

/* jansson refuses NaN and infinity (json_real returns NULL); an unknown value
 * is left out rather than written as something compare.py cannot read. */
static void set_num(json_t *o, const char *key, double v) {
  if (isfinite(v)) json_object_set_new(o, key, json_real(v));
}

static void set_int(json_t *o, const char *key, long long v) { json_object_set_new(o, key, json_integer(v)); }

static void set_str(json_t *o, const char *key, const char *v) { json_object_set_new(o, key, json_string(v ? v : "")); }

static json_t *gpu_json(const gpu_info *g) {
  json_t *o = json_object();
  set_str(o, "name", g->name);
  set_str(o, "uuid", g->uuid);
  set_str(o, "pci_bus_id", g->pci_bus_id);
  set_str(o, "compute_capability", g->compute_capability);
  set_int(o, "sm_count", g->sm_count);
  set_num(o, "sm_clock_max_mhz", g->sm_clock_max_mhz);
  set_num(o, "mem_clock_max_mhz", g->mem_clock_max_mhz);
  set_int(o, "bus_width_bits", g->bus_width_bits);
  set_num(o, "peak_GBps", g->peak_gbps);
  set_int(o, "l2_cache_bytes", g->l2_bytes);
  set_int(o, "global_mem_bytes", g->global_mem_bytes);
  json_object_set_new(o, "ecc", json_boolean(g->ecc));
  set_str(o, "driver_version", g->driver_version);
  set_str(o, "cuda_driver_version", g->cuda_driver_version);
  set_str(o, "runtime_version", g->runtime_version);
  return o;
}

static json_t *context_json(const run_context *c) {
  json_t *o = json_object();
  set_str(o, "date", c->date);
  set_str(o, "host_name", c->host_name);
  set_str(o, "executable", c->executable);
  set_int(o, "num_cpus", c->num_cpus);
  json_t *load = json_array();
  for (int i = 0; i < 3; i++) json_array_append_new(load, json_real(isfinite(c->load_avg[i]) ? c->load_avg[i] : 0));
  json_object_set_new(o, "load_avg", load);
  set_str(o, "library_version", "cuda_perf runner 1");
  set_str(o, "library_build_type", c->build_type);
  set_int(o, "json_schema_version", 1);
  char seed[32];
  snprintf(seed, sizeof seed, "%llu", (unsigned long long)c->seed);
  set_str(o, "seed", seed); /* a string: a uint64 does not fit JSON integers everywhere */
  for (size_t i = 0; i < c->n_user; i++)
    if (!report_context_key_reserved(c->user[i].key)) set_str(o, c->user[i].key, c->user[i].value);
  json_object_set_new(o, "gpu", gpu_json(&c->gpu));
  set_num(o, "copy_bandwidth_GBps", c->copy_gbps);
  set_num(o, "copy_probe_bytes", c->copy_probe_bytes);
  if (c->n_launch > 0) {
    json_t *a = json_array();
    for (int i = 0; i < c->n_launch; i++) json_array_append_new(a, json_real(c->launch_ns[i]));
    json_object_set_new(o, "launch_ns", a);
  }
  set_str(o, "nvml", c->nvml);
  if (c->testbed[0]) {
    set_str(o, "testbed", c->testbed);
    const testbed_facts *tb = &c->testbed_facts;
    json_t *t = json_object();
    set_str(t, "source", c->testbed_source);
    set_int(t, "gpus", tb->gpus);
    set_int(t, "nvlinks", tb->nvlinks);
    set_str(t, "cpu_model", tb->cpu_model);
    set_str(t, "driver", tb->driver);
    json_object_set_new(o, "testbed_facts", t);
  }
  char filter[160];
  if (c->clock_filter)
    snprintf(filter, sizeof filter, "samples with SM clock < %.2f x %.0f MHz discarded", c->min_clock_ratio,
             c->gpu.sm_clock_max_mhz);
  else
    snprintf(filter, sizeof filter, "disabled (%s)",
             c->min_clock_ratio <= 0 ? "--min_clock_ratio=0" : "no NVML clock readings");
  set_str(o, "clock_filter", filter);
  json_object_set_new(o, "l2_flush", json_boolean(c->l2_flush));
  set_num(o, "l2_flush_bytes", c->l2_flush ? c->l2_flush_bytes : 0);
  if (c->l2_flush) set_str(o, "l2_flush_method", c->l2_flush_write ? "write" : "read");
  json_t *t = json_object();
  set_int(t, "repetitions", c->repetitions);
  set_int(t, "contexts", c->contexts > 0 ? c->contexts : 1);
  set_num(t, "contexts_below_s", c->contexts_below_s);
  set_int(t, "long_contexts", c->long_contexts);
  set_num(t, "min_time_s", c->min_time_s);
  set_num(t, "min_warmup_time_s", c->min_warmup_s);
  set_int(t, "min_samples", c->min_samples);
  set_num(t, "max_noise_pct", c->max_noise_pct);
  set_num(t, "timeout_s", c->timeout_s);
  set_num(t, "min_clock_ratio", c->min_clock_ratio);
  json_object_set_new(o, "timing", t);
  return o;
}

static json_t *entry_head(const bench_result *r, const char *name, const char *run_type) {
  json_t *e = json_object();
  set_str(e, "name", name);
  set_int(e, "family_index", r->family_index);
  set_int(e, "per_family_instance_index", r->instance_index);
  set_str(e, "run_name", r->name);
  set_str(e, "run_type", run_type);
  set_int(e, "repetitions", r->failed ? 1 : r->nreps);
  return e;
}

static json_t *iteration_json(const run_context *ctx, const bench_result *r, int i) {
  const rep_result *rep = &r->reps[i];
  rep_metrics m;
  report_rep_metrics(ctx, r, rep, &m);
  json_t *e = entry_head(r, r->name, "iteration");
  set_int(e, "repetition_index", i);
  set_int(e, "threads", 1);
  set_int(e, "iterations", (long long)rep->n);
  set_num(e, "real_time", m.real_ns);
  set_num(e, "cpu_time", m.cpu_ns);
  set_str(e, "time_unit", "ns");
  set_num(e, "bytes_per_second", m.bytes_per_second);
  if (r->reference) set_str(e, "label", "reference");
  if (r->host_round_trip) json_object_set_new(e, "host_round_trip", json_true());
  set_num(e, "GBps", m.gbps);
  if (m.pct_peak >= 0) set_num(e, "pct_of_peak", m.pct_peak);
  if (m.pct_copy >= 0) set_num(e, "pct_of_copy", m.pct_copy);
  if (r->flops > 0) set_num(e, "flops_per_second", m.flops_per_second);
  set_num(e, "time_mean", m.gpu.mean);
  set_num(e, "time_stddev", m.gpu.stddev);
  set_num(e, "time_cv", m.gpu.cv);
  set_num(e, "time_min", m.gpu.min);
  set_num(e, "time_max", m.gpu.max);
  set_num(e, "noise_pct", 100 * rep->noise);
  set_int(e, "timed_out", rep->timed_out);
  set_int(e, "discarded_samples", (long long)rep->discarded);
  if (rep->clocks_valid) {
    set_int(e, "sm_clock_min_mhz", rep->sm_mhz_min);
    set_int(e, "sm_clock_max_mhz", rep->sm_mhz_max);
    set_int(e, "mem_clock_min_mhz", rep->mem_mhz_min);
    set_int(e, "mem_clock_max_mhz", rep->mem_mhz_max);
    set_int(e, "temperature_max_c", rep->temp_c_max);
    set_int(e, "throttle_reasons", (long long)rep->throttle);
  }
  if (rep->ncontext >= 2) {
    /* real_time is their mean; the samples are those of all the contexts. */
    set_int(e, "contexts", (long long)rep->ncontext);
    json_t *medians = json_array();
    for (size_t k = 0; k < rep->ncontext; k++) json_array_append_new(medians, json_real(rep->context_ns[k]));
    json_object_set_new(e, "context_medians", medians);
  }
  json_t *samples = json_array();
  for (size_t s = 0; s < rep->n; s++) json_array_append_new(samples, json_real(rep->gpu_ns[s]));
  json_object_set_new(e, "samples", samples);
  return e;
}

static json_t *aggregate_json(const bench_result *r, const agg_table *t, agg_kind k) {
  char name[300];
  snprintf(name, sizeof name, "%s_%s", r->name, agg_name(k));
  json_t *e = entry_head(r, name, "aggregate");
  set_int(e, "threads", 1);
  set_str(e, "aggregate_name", agg_name(k));
  set_str(e, "aggregate_unit", k == AGG_CV ? "percentage" : "time");
  set_int(e, "iterations", r->nreps);
  set_num(e, "real_time", t->v[MET_REAL][k]);
  set_num(e, "cpu_time", t->v[MET_CPU][k]);
  set_str(e, "time_unit", "ns");
  set_num(e, "bytes_per_second", t->v[MET_BPS][k]);
  if (r->reference) set_str(e, "label", "reference");
  if (r->host_round_trip) json_object_set_new(e, "host_round_trip", json_true());
  set_num(e, "GBps", t->v[MET_GBPS][k]);
  if (t->known[MET_PEAK]) set_num(e, "pct_of_peak", t->v[MET_PEAK][k]);
  if (t->known[MET_COPY]) set_num(e, "pct_of_copy", t->v[MET_COPY][k]);
  if (t->known[MET_FLOPS]) set_num(e, "flops_per_second", t->v[MET_FLOPS][k]);
  return e;
}

static json_t *error_json(const bench_result *r) {
  json_t *e = entry_head(r, r->name, "iteration");
  set_int(e, "repetition_index", 0);
  set_int(e, "threads", 1);
  json_object_set_new(e, "error_occurred", json_true());
  set_str(e, "error_message", r->error);
  set_int(e, "iterations", 0);
  set_num(e, "real_time", 0);
  set_num(e, "cpu_time", 0);
  set_str(e, "time_unit", "ns");
  return e;
}

/* A benchmark's entries appended to list: its repetitions (unless aggregates_only and it has
 * aggregates), then its aggregates, or its error. 0, or -1 out of memory. */
static int append_entries(json_t *list, const run_context *ctx, const bench_result *r, int aggregates_only) {
  if (r->failed) return json_array_append_new(list, error_json(r));
  int aggs = report_has_aggregates(r);
  if (!(aggs && aggregates_only))
    for (int i = 0; i < r->nreps; i++) json_array_append_new(list, iteration_json(ctx, r, i));
  if (!aggs) return 0;
  agg_table t;
  if (report_aggregates(ctx, r, &t)) return -1;
  for (int k = 0; k < AGG_COUNT; k++) json_array_append_new(list, aggregate_json(r, &t, (agg_kind)k));
  return 0;
}

/* The document of a context and its entries (list is taken); NULL on allocation failure. */
static json_t *document(const run_context *ctx, json_t *list) {
  json_t *doc = json_object();
  if (!doc || !list) {
    json_decref(doc);
    json_decref(list);
    return NULL;
  }
  json_object_set_new(doc, "context", context_json(ctx));
  json_object_set_new(doc, "benchmarks", list);
  return doc;
}

json_t *json_report(const run_context *ctx, const bench_result *res, size_t n, int aggregates_only) {
  json_t *list = json_array();
  for (size_t b = 0; list && b < n; b++)
    if (append_entries(list, ctx, &res[b], aggregates_only)) {
      json_decref(list);
      list = NULL;
    }
  return document(ctx, list);
}

/* The reporter's state is the list of entries so far; NULL once something failed (nothing is
 * written then, rather than a document without some benchmarks). */
static int json_begin(reporter *self, const run_context *ctx) {
  self->ctx = ctx;
  self->state = json_array();
  return self->state ? 0 : -1;
}

static int json_result(reporter *self, const bench_result *r) {
  if (!self->state) return -1;
  if (append_entries(self->state, self->ctx, r, self->aggregates_only) == 0) return 0;
  json_decref(self->state);
  self->state = NULL;
  return -1;
}

static int json_end(reporter *self) {
  json_t *doc = self->state ? document(self->ctx, self->state) : NULL;
  self->state = NULL;
  if (!doc) return -1;
  int rc = json_dumpf(doc, self->out, REPORT_JSON_FLAGS);
  json_decref(doc);
  if (rc == 0 && fputc('\n', self->out) == EOF) rc = -1;
  return rc;
}

void json_reporter(reporter *r, FILE *out, int aggregates_only) {
  *r = (reporter){
      .begin = json_begin, .result = json_result, .end = json_end, .out = out, .aggregates_only = aggregates_only};
}
