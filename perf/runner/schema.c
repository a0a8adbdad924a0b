#include "perf/runner/schema.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "perf/runner/stats.h"

static int fail(char *err, size_t errlen, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(err, errlen, fmt, ap);
  va_end(ap);
  return -1;
}

static const json_t *need(const json_t *o, const char *key, json_type type, const char *where, char *err,
                          size_t errlen) {
  const json_t *v = json_object_get(o, key);
  static const char *kTypes[] = {"object", "array", "string", "integer", "number", "true", "false", "null"};
  int ok = v &&
      (json_typeof(v) == type || (type == JSON_REAL && json_is_number(v)) || (type == JSON_TRUE && json_is_boolean(v)));
  if (!ok) {
    fail(err, errlen, "%s.%s: missing or not %s", where, key,
         type == JSON_TRUE       ? "a boolean"
             : type == JSON_REAL ? "a number"
                                 : kTypes[type]);
    return NULL;
  }
  return v;
}

#define NEED(var, obj, key, type, where)                        \
  const json_t *var = need(obj, key, type, where, err, errlen); \
  if (!var) return -1

static int check_context(const json_t *ctx, char *err, size_t errlen) {
  NEED(version, ctx, "json_schema_version", JSON_INTEGER, "context");
  if (json_integer_value(version) != 1)
    return fail(err, errlen, "context.json_schema_version: %lld, compare.py accepts only 1",
                (long long)json_integer_value(version));
  static const char *kStrings[] = {"date", "host_name", "executable", "library_build_type", "nvml", "clock_filter"};
  for (size_t i = 0; i < sizeof kStrings / sizeof *kStrings; i++) {
    NEED(s, ctx, kStrings[i], JSON_STRING, "context");
    (void)s;
  }
  NEED(flush, ctx, "l2_flush", JSON_TRUE, "context");
  (void)flush;
  NEED(copy, ctx, "copy_bandwidth_GBps", JSON_REAL, "context");
  if (!(json_number_value(copy) > 0)) return fail(err, errlen, "context.copy_bandwidth_GBps: must be > 0");
  NEED(gpu, ctx, "gpu", JSON_OBJECT, "context");
  static const char *kGpuStrings[] = {
      "name", "uuid", "compute_capability", "driver_version", "cuda_driver_version", "runtime_version"};
  for (size_t i = 0; i < sizeof kGpuStrings / sizeof *kGpuStrings; i++) {
    NEED(s, gpu, kGpuStrings[i], JSON_STRING, "context.gpu");
    if (!strcmp(kGpuStrings[i], "uuid") && strncmp(json_string_value(s), "GPU-", 4) != 0)
      return fail(err, errlen, "context.gpu.uuid: '%s' does not start with GPU-", json_string_value(s));
  }
  static const char *kGpuPositive[] = {"sm_count",         "bus_width_bits",    "l2_cache_bytes",
                                       "sm_clock_max_mhz", "mem_clock_max_mhz", "peak_GBps"};
  for (size_t i = 0; i < sizeof kGpuPositive / sizeof *kGpuPositive; i++) {
    NEED(v, gpu, kGpuPositive[i], JSON_REAL, "context.gpu");
    if (!(json_number_value(v) > 0)) return fail(err, errlen, "context.gpu.%s: must be > 0", kGpuPositive[i]);
  }
  NEED(ecc, gpu, "ecc", JSON_TRUE, "context.gpu");
  (void)ecc;
  return 0;
}

static int time_unit_ok(const char *u) {
  return !strcmp(u, "ns") || !strcmp(u, "us") || !strcmp(u, "ms") || !strcmp(u, "s");
}

/* What we remember about each run_name while walking the list in order. */
typedef struct {
  const char *run_name;
  long long repetitions;
  int iterations_seen;
  int aggregates_seen; /* bit per aggregate kind */
  unsigned char *rep_seen;
} run_state;

static const char *kAggs[] = {"mean", "median", "stddev", "cv"};

/* The fields every entry has, read and checked once. */
typedef struct {
  char where[64];
  const char *name, *run_name, *type;
  long long reps, iters;
  double real, cpu;
} entry;

static int read_entry(const json_t *b, size_t i, entry *e, char *err, size_t errlen) {
  snprintf(e->where, sizeof e->where, "benchmarks[%zu]", i);
  const char *where = e->where;
  NEED(name_j, b, "name", JSON_STRING, where);
  NEED(run_name_j, b, "run_name", JSON_STRING, where);
  NEED(type_j, b, "run_type", JSON_STRING, where);
  NEED(reps_j, b, "repetitions", JSON_INTEGER, where);
  NEED(threads_j, b, "threads", JSON_INTEGER, where);
  NEED(iters_j, b, "iterations", JSON_INTEGER, where);
  NEED(real_j, b, "real_time", JSON_REAL, where);
  NEED(cpu_j, b, "cpu_time", JSON_REAL, where);
  NEED(unit_j, b, "time_unit", JSON_STRING, where);
  NEED(fam_j, b, "family_index", JSON_INTEGER, where);
  NEED(inst_j, b, "per_family_instance_index", JSON_INTEGER, where);
  (void)fam_j;
  (void)inst_j;
  e->name = json_string_value(name_j);
  e->run_name = json_string_value(run_name_j);
  e->type = json_string_value(type_j);
  e->reps = json_integer_value(reps_j);
  e->iters = json_integer_value(iters_j);
  e->real = json_number_value(real_j);
  e->cpu = json_number_value(cpu_j);
  if (!*e->name || !*e->run_name) return fail(err, errlen, "%s: empty name or run_name", where);
  if (e->reps < 1) return fail(err, errlen, "%s (%s): repetitions %lld < 1", where, e->name, e->reps);
  if (json_integer_value(threads_j) != 1) return fail(err, errlen, "%s (%s): threads must be 1", where, e->name);
  if (e->iters < 0) return fail(err, errlen, "%s (%s): iterations < 0", where, e->name);
  if (!time_unit_ok(json_string_value(unit_j)))
    return fail(err, errlen, "%s (%s): time_unit '%s' is not ns, us, ms or s", where, e->name,
                json_string_value(unit_j));
  return 0;
}

/* The run an entry belongs to (by run_name), added on its first entry. */
static int run_of(const entry *e, run_state **runs, size_t *nruns, run_state **out, char *err, size_t errlen) {
  for (size_t r = 0; r < *nruns; r++)
    if (!strcmp((*runs)[r].run_name, e->run_name)) {
      *out = &(*runs)[r];
      if ((*out)->repetitions == e->reps) return 0;
      return fail(err, errlen, "%s (%s): repetitions %lld differs from %lld of an earlier entry of %s", e->where,
                  e->name, e->reps, (*out)->repetitions, e->run_name);
    }
  run_state *grown = realloc(*runs, (*nruns + 1) * sizeof **runs);
  if (!grown) return fail(err, errlen, "out of memory");
  *runs = grown;
  run_state *rs = &(*runs)[(*nruns)++];
  memset(rs, 0, sizeof *rs);
  rs->run_name = e->run_name;
  rs->repetitions = e->reps;
  rs->rep_seen = calloc((size_t)e->reps, 1);
  if (!rs->rep_seen) return fail(err, errlen, "out of memory");
  *out = rs;
  return 0;
}

/* What real_time must be: the median of the samples, or with --contexts the mean of the
 * contexts' medians (perf/runner/contexts.h). */
static int expected_real_time(const json_t *b, const entry *e, double *want, const char **what, char *err,
                              size_t errlen) {
  const char *where = e->where;
  NEED(samples, b, "samples", JSON_ARRAY, where);
  size_t n = json_array_size(samples);
  if ((long long)n != e->iters)
    return fail(err, errlen, "%s (%s): %zu samples but iterations = %lld", where, e->name, n, e->iters);
  double *x = malloc((n ? n : 1) * sizeof *x);
  if (!x) return fail(err, errlen, "out of memory");
  for (size_t s = 0; s < n; s++) {
    const json_t *v = json_array_get(samples, s);
    x[s] = json_is_number(v) ? json_number_value(v) : -1;
    if (!(x[s] > 0)) {
      free(x);
      return fail(err, errlen, "%s (%s): samples[%zu] is not a positive number", where, e->name, s);
    }
  }
  *want = stats_median(x, n);
  *what = "the median of its samples";
  free(x);
  const json_t *pm = json_object_get(b, "context_medians");
  if (!pm) return 0;
  size_t np = json_array_size(pm);
  double sum = 0;
  for (size_t p = 0; p < np; p++) {
    const json_t *v = json_array_get(pm, p);
    if (!json_is_number(v) || !(json_number_value(v) > 0))
      return fail(err, errlen, "%s (%s): context_medians[%zu] is not a positive number", where, e->name, p);
    sum += json_number_value(v);
  }
  const json_t *np_j = json_object_get(b, "contexts");
  if (np < 2 || !json_is_integer(np_j) || json_integer_value(np_j) != (json_int_t)np)
    return fail(err, errlen, "%s (%s): context_medians needs 2 or more values and \"contexts\" = their count", where,
                e->name);
  *want = sum / (double)np;
  *what = "the mean of context_medians";
  return 0;
}

static int check_iteration(const json_t *b, const entry *e, run_state *rs, char *err, size_t errlen) {
  const char *where = e->where, *name = e->name;
  if (strcmp(name, e->run_name))
    return fail(err, errlen, "%s: iteration name '%s' != run_name '%s'", where, name, e->run_name);
  if (rs->aggregates_seen)
    return fail(err, errlen, "%s (%s): iteration entry after the aggregates of its run", where, name);
  NEED(idx_j, b, "repetition_index", JSON_INTEGER, where);
  long long idx = json_integer_value(idx_j);
  if (idx < 0 || idx >= e->reps)
    return fail(err, errlen, "%s (%s): repetition_index %lld outside [0, %lld)", where, name, idx, e->reps);
  if (rs->rep_seen[idx]) return fail(err, errlen, "%s (%s): repetition_index %lld repeated", where, name, idx);
  rs->rep_seen[idx] = 1;
  rs->iterations_seen++;
  /* compare.py's geometric mean needs positive times. */
  if (!(e->real > 0) || !(e->cpu > 0))
    return fail(err, errlen, "%s (%s): real_time and cpu_time must be > 0", where, name);
  double want = 0;
  const char *what = "";
  if (expected_real_time(b, e, &want, &what, err, errlen)) return -1;
  /* The file holds 10 significant digits. */
  if (fabs(want - e->real) > 1e-8 * fabs(e->real))
    return fail(err, errlen, "%s (%s): real_time %.10g is not %s (%.10g)", where, name, e->real, what, want);
  return 0;
}

static int check_aggregate(const json_t *b, const entry *e, run_state *rs, char *err, size_t errlen) {
  const char *where = e->where, *name = e->name;
  NEED(agg_j, b, "aggregate_name", JSON_STRING, where);
  const char *agg = json_string_value(agg_j);
  int k = -1;
  for (int a = 0; a < 4; a++)
    if (!strcmp(agg, kAggs[a])) k = a;
  if (k < 0)
    return fail(err, errlen, "%s (%s): aggregate_name '%s' is not mean, median, stddev or cv", where, name, agg);
  char want[600];
  snprintf(want, sizeof want, "%s_%s", e->run_name, agg);
  if (strcmp(name, want)) return fail(err, errlen, "%s: aggregate name '%s', expected '%s'", where, name, want);
  if (rs->aggregates_seen & (1 << k)) return fail(err, errlen, "%s (%s): aggregate repeated", where, name);
  rs->aggregates_seen |= 1 << k;
  if (e->reps < 2) return fail(err, errlen, "%s (%s): aggregates need repetitions >= 2", where, name);
  if (rs->iterations_seen != 0 && rs->iterations_seen != e->reps)
    return fail(err, errlen, "%s (%s): %d iteration entries before the aggregates, repetitions = %lld", where, name,
                rs->iterations_seen, e->reps);
  if (!(e->real >= 0) || !(e->cpu >= 0)) return fail(err, errlen, "%s (%s): negative time", where, name);
  return 0;
}

static int check_entry(const json_t *b, size_t i, run_state **runs, size_t *nruns, char *err, size_t errlen) {
  entry e;
  run_state *rs = NULL;
  if (read_entry(b, i, &e, err, errlen) || run_of(&e, runs, nruns, &rs, err, errlen)) return -1;
  const json_t *error = json_object_get(b, "error_occurred");
  if (error && json_is_true(error)) {
    NEED(msg, b, "error_message", JSON_STRING, e.where);
    (void)msg;
    return 0;
  }
  NEED(bps_j, b, "bytes_per_second", JSON_REAL, e.where);
  if (!(json_number_value(bps_j) >= 0)) return fail(err, errlen, "%s (%s): bytes_per_second < 0", e.where, e.name);
  if (!strcmp(e.type, "iteration")) return check_iteration(b, &e, rs, err, errlen);
  if (!strcmp(e.type, "aggregate")) return check_aggregate(b, &e, rs, err, errlen);
  return fail(err, errlen, "%s (%s): run_type '%s' is not iteration or aggregate", e.where, e.name, e.type);
}

int schema_validate(const json_t *doc, char *err, size_t errlen) {
  if (!json_is_object(doc)) return fail(err, errlen, "top level: not an object");
  NEED(ctx, doc, "context", JSON_OBJECT, "top level");
  NEED(list, doc, "benchmarks", JSON_ARRAY, "top level");
  if (check_context(ctx, err, errlen)) return -1;
  run_state *runs = NULL;
  size_t nruns = 0;
  int rc = 0;
  for (size_t i = 0; i < json_array_size(list) && rc == 0; i++) {
    const json_t *b = json_array_get(list, i);
    if (!json_is_object(b))
      rc = fail(err, errlen, "benchmarks[%zu]: not an object", i);
    else
      rc = check_entry(b, i, &runs, &nruns, err, errlen);
  }
  /* Aggregates come as a complete set. */
  for (size_t r = 0; r < nruns && rc == 0; r++)
    if (runs[r].aggregates_seen && runs[r].aggregates_seen != 0xF)
      rc = fail(err, errlen, "%s: incomplete aggregates (need mean, median, stddev and cv)", runs[r].run_name);
  for (size_t r = 0; r < nruns; r++) free(runs[r].rep_seen);
  free(runs);
  return rc;
}
