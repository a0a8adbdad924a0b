#include "perf/schema/run_schema.h"

#include <stdio.h>
#include <string.h>

/* Short names for the table's masks. */
#define ANY RS_ALL
#define ITER RS_ITERATION
#define AGGR RS_AGGREGATE
#define FAILED RS_FAILED
#define MEASURED (RS_ITERATION | RS_AGGREGATE)
#define WRITTEN_ENTRY (RS_ITERATION | RS_AGGREGATE | RS_FAILED)

/* The rows of an object come together, objects before what they hold (run_schema_check walks them in
 * this order; run_schema_test checks it). */
const run_field run_fields[] = {
    {"", "context", RS_OBJECT, ANY, ANY, 0, "", "the run: host, GPU, probes and how it was measured"},
    {"context", "date", RS_STRING, ANY, ANY, 0, "", "when the run started: ISO 8601 local time with offset"},
    {"context", "host_name", RS_STRING, ANY, ANY, 0, "", "the host's name"},
    {"context", "executable", RS_STRING, 0, ANY, 0, "", "the benchmark binary as it was started (argv[0])"},
    {"context", "num_cpus", RS_INTEGER, 0, ANY, 0, "", "CPUs online"},
    {"context", "load_avg", RS_ARRAY, 0, ANY, 0, "", "the host's load averages over 1, 5 and 15 minutes"},
    {"context", "library_version", RS_STRING, 0, ANY, 0, "", "\"cuda_perf runner 1\""},
    {"context", "library_build_type", RS_STRING, 0, ANY, 0, "", "\"release\" or \"debug\""},
    {"context", "json_schema_version", RS_INTEGER, ANY, ANY, 0, "", "1, the only version compare.py and the gate read"},
    {"context", "seed", RS_STRING, 0, ANY, 0, "",
     "the seed of the random inputs, a uint64 as a string (no JSON reader loses digits)"},
    {"context", "commit", RS_STRING, 0, 0, 1, "",
     "the commit measured (--benchmark_context=commit=SHA); absent: \"unknown\""},
    {"context", "gpu", RS_OBJECT, ANY, ANY, 0, "", "the device measured"},
    {"context", "copy_bandwidth_GBps", RS_NUMBER, ANY, ANY, 0, "GB/s",
     "the device-to-device cudaMemcpy probe's bandwidth; 0 when the probe failed"},
    {"context", "copy_probe_bytes", RS_NUMBER, 0, ANY, 0, "bytes", "bytes one probe copy moves (read + written)"},
    {"context", "launch_ns", RS_ARRAY, 0, 0, 0, "ns",
     "the launch probe (an empty kernel timed like a sample), in the first context then each of --contexts; "
     "absent in runs made before the probe"},
    {"context", "nvml", RS_STRING, 0, ANY, 0, "", "\"ok: ...\" or why NVML is unavailable"},
    {"context", "testbed", RS_STRING, 0, 0, 0, "",
     "the runner's class of host (perf/runner/testbed.h); absent in runs made before it: no testbed"},
    {"context", "testbed_facts", RS_OBJECT, 0, 0, 0, "", "what the testbed was made of; there with testbed"},
    {"context", "clock_filter", RS_STRING, 0, ANY, 0, "", "which samples a low SM clock discarded, or why none"},
    {"context", "l2_flush", RS_BOOLEAN, 0, ANY, 0, "", "false with --hot: no L2 flush before each sample"},
    {"context", "l2_flush_bytes", RS_NUMBER, 0, ANY, 0, "bytes", "the flush's size; 0 with --hot"},
    {"context", "l2_flush_method", RS_STRING, 0, 0, 0, "",
     "\"read\" or \"write\"; absent with --hot, and in runs made before the read flush: \"write\""},
    {"context", "timing", RS_OBJECT, 0, ANY, 0, "", "the sampling flags"},

    {"context.gpu", "name", RS_STRING, ANY, ANY, 0, "", "the model, as CUDA names it (\"NVIDIA H100 80GB HBM3\")"},
    {"context.gpu", "uuid", RS_STRING, 0, ANY, 0, "", "\"GPU-\" and its UUID: the GPU's identity in baselines"},
    {"context.gpu", "pci_bus_id", RS_STRING, 0, ANY, 0, "", "\"0000:17:00.0\""},
    {"context.gpu", "compute_capability", RS_STRING, 0, ANY, 0, "", "MAJOR.MINOR (\"9.0\")"},
    {"context.gpu", "sm_count", RS_INTEGER, ANY, ANY, 0, "", "streaming multiprocessors"},
    {"context.gpu", "sm_clock_max_mhz", RS_NUMBER, 0, ANY, 0, "MHz", "the SM clock's maximum (NVML's, else CUDA's)"},
    {"context.gpu", "mem_clock_max_mhz", RS_NUMBER, ANY, ANY, 0, "MHz", "the memory clock's maximum"},
    {"context.gpu", "bus_width_bits", RS_INTEGER, ANY, ANY, 0, "bits", "the memory bus's width"},
    {"context.gpu", "peak_GBps", RS_NUMBER, 0, ANY, 0, "GB/s", "2 x memory clock x bus width / 8"},
    {"context.gpu", "l2_cache_bytes", RS_INTEGER, 0, ANY, 0, "bytes", "the L2 cache's size"},
    {"context.gpu", "global_mem_bytes", RS_INTEGER, 0, ANY, 0, "bytes", "the device memory's size"},
    {"context.gpu", "ecc", RS_BOOLEAN, ANY, ANY, 0, "", "whether ECC is on"},
    {"context.gpu", "driver_version", RS_STRING, ANY, ANY, 0, "",
     "NVML's driver version (\"580.65.06\"); \"\": unknown"},
    {"context.gpu", "cuda_driver_version", RS_STRING, 0, ANY, 0, "", "cudaDriverGetVersion (\"13.0\")"},
    {"context.gpu", "runtime_version", RS_STRING, ANY, ANY, 0, "", "cudaRuntimeGetVersion (\"13.0\")"},

    {"context.timing", "repetitions", RS_INTEGER, 0, ANY, 0, "", "--benchmark_repetitions"},
    {"context.timing", "contexts", RS_INTEGER, 0, 0, 0, "",
     "CUDA contexts that measured the short benchmarks (--contexts); absent in runs made before it: 1"},
    {"context.timing", "contexts_below_s", RS_NUMBER, 0, 0, 0, "s",
     "what short means (--contexts_below); absent in runs made before it: 0"},
    {"context.timing", "long_contexts", RS_INTEGER, 0, 0, 0, "",
     "of those contexts, how many measured the long benchmarks too; absent in runs made before it: 0"},
    {"context.timing", "min_time_s", RS_NUMBER, 0, ANY, 0, "s", "kept GPU time per repetition"},
    {"context.timing", "min_warmup_time_s", RS_NUMBER, 0, 0, 0, "s",
     "warm-up before sampling; absent in runs made before it: 0 (one warm-up run)"},
    {"context.timing", "min_samples", RS_INTEGER, 0, ANY, 0, "", "--min_samples"},
    {"context.timing", "max_noise_pct", RS_NUMBER, 0, ANY, 0, "%", "the target relative standard error"},
    {"context.timing", "timeout_s", RS_NUMBER, 0, ANY, 0, "s", "the sampling time limit per repetition"},
    {"context.timing", "min_clock_ratio", RS_NUMBER, 0, ANY, 0, "",
     "samples below this x the SM clock's maximum are dropped"},

    {"context.testbed_facts", "source", RS_STRING, 0, ANY, 0, "", "\"detected\" or \"PERF_TESTBED\""},
    {"context.testbed_facts", "gpus", RS_INTEGER, 0, ANY, 0, "", "GPUs on the host as NVML sees them; 0: unknown"},
    {"context.testbed_facts", "nvlinks", RS_INTEGER, 0, ANY, 0, "", "active NVLink links of GPU 0; -1: unknown"},
    {"context.testbed_facts", "cpu_model", RS_STRING, 0, ANY, 0, "", "/proc/cpuinfo's model name; \"\": unknown"},
    {"context.testbed_facts", "driver", RS_STRING, 0, ANY, 0, "", "NVML's driver version; \"\": unknown"},

    {"", "benchmarks", RS_ARRAY, ANY, ANY, 0, "", "the entries: a benchmark's repetitions, then its aggregates"},
    {"benchmarks[]", "name", RS_STRING, ANY, ANY, 0, "", "run_name, and for an aggregate _mean, ..."},
    {"benchmarks[]", "family_index", RS_INTEGER, 0, WRITTEN_ENTRY, 0, "", "for compare.py's order"},
    {"benchmarks[]", "per_family_instance_index", RS_INTEGER, 0, WRITTEN_ENTRY, 0, "", "for compare.py's order"},
    {"benchmarks[]", "run_name", RS_STRING, 0, WRITTEN_ENTRY, 0, "", "the benchmark (family/variant/params)"},
    {"benchmarks[]", "run_type", RS_STRING, ANY, ANY, 0, "", "\"iteration\" or \"aggregate\""},
    {"benchmarks[]", "repetitions", RS_INTEGER, 0, WRITTEN_ENTRY, 0, "", "how many the benchmark has"},
    {"benchmarks[]", "repetition_index", RS_INTEGER, 0, ITER | FAILED, 0, "", "which repetition, from 0"},
    {"benchmarks[]", "threads", RS_INTEGER, 0, WRITTEN_ENTRY, 0, "", "1"},
    {"benchmarks[]", "iterations", RS_INTEGER, 0, WRITTEN_ENTRY, 0, "",
     "kept samples (an aggregate: repetitions; failed: 0)"},
    {"benchmarks[]", "real_time", RS_NUMBER, ITER, WRITTEN_ENTRY, 0, "time_unit",
     "the median of the samples, or with context_medians their mean"},
    {"benchmarks[]", "cpu_time", RS_NUMBER, 0, WRITTEN_ENTRY, 0, "time_unit",
     "the median host wall time of the samples' run() calls"},
    {"benchmarks[]", "time_unit", RS_STRING, ITER, WRITTEN_ENTRY, 0, "", "\"ns\", \"us\", \"ms\" or \"s\""},
    {"benchmarks[]", "bytes_per_second", RS_NUMBER, ITER, MEASURED, 0, "B/s", "bytes per run / real_time"},
    {"benchmarks[]", "aggregate_name", RS_STRING, 0, AGGR, 0, "", "\"mean\", \"median\", \"stddev\" or \"cv\""},
    {"benchmarks[]", "aggregate_unit", RS_STRING, 0, AGGR, 0, "", "\"time\", or \"percentage\" for cv"},
    {"benchmarks[]", "error_occurred", RS_BOOLEAN, 0, FAILED, 0, "", "true: the benchmark failed"},
    {"benchmarks[]", "error_message", RS_STRING, 0, FAILED, 0, "", "why it failed"},
    {"benchmarks[]", "label", RS_STRING, 0, 0, 0, "", "\"reference\" for a library's kernel; else absent"},
    {"benchmarks[]", "host_round_trip", RS_BOOLEAN, 0, 0, 0, "",
     "true when the timed region waits on the host; else absent"},
    {"benchmarks[]", "GBps", RS_NUMBER, 0, MEASURED, 0, "GB/s", "bytes_per_second / 1e9"},
    {"benchmarks[]", "pct_of_peak", RS_NUMBER, 0, 0, 0, "%", "of peak_GBps; absent when unknown"},
    {"benchmarks[]", "pct_of_copy", RS_NUMBER, 0, 0, 0, "%", "of copy_bandwidth_GBps; absent when unknown"},
    {"benchmarks[]", "flops_per_second", RS_NUMBER, 0, 0, 0, "FLOP/s", "absent when the case counts no FLOPs"},
    {"benchmarks[]", "time_mean", RS_NUMBER, 0, ITER, 0, "ns", "the samples' mean"},
    {"benchmarks[]", "time_stddev", RS_NUMBER, 0, ITER, 0, "ns", "the samples' standard deviation"},
    {"benchmarks[]", "time_cv", RS_NUMBER, 0, ITER, 0, "", "time_stddev / time_mean"},
    {"benchmarks[]", "time_min", RS_NUMBER, 0, ITER, 0, "ns", "the fastest sample"},
    {"benchmarks[]", "time_max", RS_NUMBER, 0, ITER, 0, "ns", "the slowest sample"},
    {"benchmarks[]", "noise_pct", RS_NUMBER, 0, ITER, 0, "%", "the relative standard error sampling ended at"},
    {"benchmarks[]", "timed_out", RS_INTEGER, 0, ITER, 0, "", "1: --timeout ended sampling before the noise target"},
    {"benchmarks[]", "discarded_samples", RS_INTEGER, 0, ITER, 0, "", "samples dropped for a low SM clock"},
    {"benchmarks[]", "sm_clock_min_mhz", RS_INTEGER, 0, 0, 0, "MHz", "NVML's lowest SM clock; absent without NVML"},
    {"benchmarks[]", "sm_clock_max_mhz", RS_INTEGER, 0, 0, 0, "MHz", "NVML's highest SM clock; absent without NVML"},
    {"benchmarks[]", "mem_clock_min_mhz", RS_INTEGER, 0, 0, 0, "MHz", "absent without NVML"},
    {"benchmarks[]", "mem_clock_max_mhz", RS_INTEGER, 0, 0, 0, "MHz", "absent without NVML"},
    {"benchmarks[]", "temperature_max_c", RS_INTEGER, 0, 0, 0, "C", "absent without NVML"},
    {"benchmarks[]", "throttle_reasons", RS_INTEGER, 0, 0, 0, "",
     "OR of NVML's clock event reasons; absent without NVML"},
    {"benchmarks[]", "contexts", RS_INTEGER, 0, 0, 0, "",
     "CUDA contexts that measured it (--contexts); absent: the first alone"},
    {"benchmarks[]", "context_medians", RS_ARRAY, 0, 0, 0, "time_unit",
     "each context's median, 2 or more; real_time is their mean; absent: one context"},
    {"benchmarks[]", "samples", RS_ARRAY, ITER, ITER, 0, "time_unit", "every kept sample's GPU time"},
};

const size_t run_nfields = sizeof run_fields / sizeof *run_fields;

const run_field *run_schema_find(const char *object, const char *name) {
  for (size_t i = 0; i < run_nfields; i++)
    if (!strcmp(run_fields[i].object, object) && !strcmp(run_fields[i].name, name)) return &run_fields[i];
  return NULL;
}

const char *run_schema_type_name(rs_type t) {
  static const char *kNames[] = {"an object", "an array", "a string", "an integer", "a number", "a boolean"};
  return t <= RS_BOOLEAN ? kNames[t] : "?";
}

static int has_type(const json_t *v, rs_type t) {
  switch (t) {
    case RS_OBJECT: return json_is_object(v);
    case RS_ARRAY: return json_is_array(v);
    case RS_STRING: return json_is_string(v);
    case RS_INTEGER: return json_is_integer(v);
    case RS_NUMBER: return json_is_number(v);
    case RS_BOOLEAN: return json_is_boolean(v);
  }
  return 0;
}

/* The object at a dotted path from the top ("" is doc itself); NULL when a step is missing. */
static const json_t *object_at(const json_t *doc, const char *path) {
  const json_t *o = doc;
  while (*path && o) {
    const char *dot = strchr(path, '.');
    size_t n = dot ? (size_t)(dot - path) : strlen(path);
    char key[64];
    snprintf(key, sizeof key, "%.*s", (int)n, path);
    o = json_object_get(o, key);
    path += dot ? n + 1 : n;
  }
  return json_is_object(o) ? o : NULL;
}

/* What kind of entry e is (RS_ITERATION, ...). */
static unsigned entry_kind(const json_t *e) {
  if (json_is_true(json_object_get(e, "error_occurred"))) return RS_FAILED;
  const char *type = json_string_value(json_object_get(e, "run_type"));
  if (type && !strcmp(type, "iteration")) return RS_ITERATION;
  if (type && !strcmp(type, "aggregate")) return RS_AGGREGATE;
  return RS_OTHER;
}

/* 0 when row f holds in o (an entry of kind `kind`, or RS_ALL outside benchmarks[]); else 1 and *p. */
static int check_row(const run_field *f, const json_t *o, unsigned kind, rs_level level, const char *where,
                     run_schema_problem *p) {
  unsigned must = level == RS_CHECK_REQUIRED ? f->required : f->required | f->written;
  const json_t *v = json_object_get(o, f->name);
  if (!v && !(must & kind)) return 0;
  if (v && has_type(v, f->type)) return 0;
  /* A field there but of another type: the runner's output is held to the table's type even where the
   * field is optional; a reader only where it requires the field (elsewhere it reads it its own way). */
  if (v && level == RS_CHECK_REQUIRED && !(must & kind)) return 0;
  p->field = f;
  p->present = v != NULL;
  snprintf(p->where, sizeof p->where, "%s", where);
  return 1;
}

int run_schema_check(const json_t *doc, rs_level level, run_schema_problem *p) {
  memset(p, 0, sizeof *p);
  for (size_t i = 0; i < run_nfields; i++) {
    const run_field *f = &run_fields[i];
    if (!strcmp(f->object, "benchmarks[]")) continue;
    const json_t *o = object_at(doc, f->object);
    if (o && check_row(f, o, RS_ALL, level, f->object, p)) return 1;
  }
  const json_t *list = json_object_get(doc, "benchmarks");
  for (size_t k = 0; k < json_array_size(list); k++) {
    const json_t *e = json_array_get(list, k);
    char where[64];
    snprintf(where, sizeof where, "benchmarks[%zu]", k);
    if (!json_is_object(e)) {
      /* Not an entry at all: its name is the first thing missing. */
      p->field = run_schema_find("benchmarks[]", "name");
      p->present = 0;
      snprintf(p->where, sizeof p->where, "%s", where);
      return 1;
    }
    unsigned kind = entry_kind(e);
    for (size_t i = 0; i < run_nfields; i++)
      if (!strcmp(run_fields[i].object, "benchmarks[]") && check_row(&run_fields[i], e, kind, level, where, p))
        return 1;
  }
  return 0;
}

void run_schema_path(const run_schema_problem *p, char *buf, size_t len) {
  snprintf(buf, len, "%s%s%s", p->where, *p->where ? "." : "", p->field ? p->field->name : "?");
}
