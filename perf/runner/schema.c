#include "perf/runner/schema.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "perf/runner/stats.h"
#include "perf/schema/run_schema.h"

static int fail(char *err, size_t errlen, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(err, errlen, fmt, ap);
  va_end(ap);
  return -1;
}

/* The field key of o, which run_schema_check has seen there with its type. */
static const json_t *get(const json_t *o, const char *key) { return json_object_get(o, key); }

/* What the table leaves to values: the version compare.py accepts, the GPU's identity, and the
 * figures that must be positive. */
static int check_context(const json_t *ctx, char *err, size_t errlen) {
  const json_t *version = get(ctx, "json_schema_version");
  if (json_integer_value(version) != 1)
    return fail(err, errlen, "context.json_schema_version: %lld, compare.py accepts only 1",
                (long long)json_integer_value(version));
  if (!(json_number_value(get(ctx, "copy_bandwidth_GBps")) > 0))
    return fail(err, errlen, "context.copy_bandwidth_GBps: must be > 0");
  const json_t *gpu = get(ctx, "gpu");
  const char *uuid = json_string_value(get(gpu, "uuid"));
  if (strncmp(uuid, "GPU-", 4) != 0) return fail(err, errlen, "context.gpu.uuid: '%s' does not start with GPU-", uuid);
  static const char *kGpuPositive[] = {"sm_count",         "bus_width_bits",    "l2_cache_bytes",
                                       "sm_clock_max_mhz", "mem_clock_max_mhz", "peak_GBps"};
  for (size_t i = 0; i < sizeof kGpuPositive / sizeof *kGpuPositive; i++)
    if (!(json_number_value(get(gpu, kGpuPositive[i])) > 0))
      return fail(err, errlen, "context.gpu.%s: must be > 0", kGpuPositive[i]);
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
  e->name = json_string_value(get(b, "name"));
  e->type = json_string_value(get(b, "run_type"));
  /* Before anything else: the table holds any other run_type only to its name. */
  if (strcmp(e->type, "iteration") != 0 && strcmp(e->type, "aggregate") != 0)
    return fail(err, errlen, "%s (%s): run_type '%s' is not iteration or aggregate", where, e->name, e->type);
  e->run_name = json_string_value(get(b, "run_name"));
  e->reps = json_integer_value(get(b, "repetitions"));
  e->iters = json_integer_value(get(b, "iterations"));
  e->real = json_number_value(get(b, "real_time"));
  e->cpu = json_number_value(get(b, "cpu_time"));
  const char *unit = json_string_value(get(b, "time_unit"));
  if (!*e->name || !*e->run_name) return fail(err, errlen, "%s: empty name or run_name", where);
  if (e->reps < 1) return fail(err, errlen, "%s (%s): repetitions %lld < 1", where, e->name, e->reps);
  if (json_integer_value(get(b, "threads")) != 1)
    return fail(err, errlen, "%s (%s): threads must be 1", where, e->name);
  if (e->iters < 0) return fail(err, errlen, "%s (%s): iterations < 0", where, e->name);
  if (!time_unit_ok(unit))
    return fail(err, errlen, "%s (%s): time_unit '%s' is not ns, us, ms or s", where, e->name, unit);
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
  const json_t *samples = get(b, "samples");
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
  const json_t *idx_j = get(b, "repetition_index");
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
  const json_t *agg_j = get(b, "aggregate_name");
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
  if (json_is_true(get(b, "error_occurred"))) return 0; /* its message: the table's */
  if (!(json_number_value(get(b, "bytes_per_second")) >= 0))
    return fail(err, errlen, "%s (%s): bytes_per_second < 0", e.where, e.name);
  if (!strcmp(e.type, "iteration")) return check_iteration(b, &e, rs, err, errlen);
  return check_aggregate(b, &e, rs, err, errlen);
}

int schema_validate(const json_t *doc, char *err, size_t errlen) {
  if (!json_is_object(doc)) return fail(err, errlen, "top level: not an object");
  /* Every field the runner writes, of its type (perf/schema/run_schema.c); then the rules on values. */
  run_schema_problem p;
  if (run_schema_check(doc, RS_CHECK_WRITTEN, &p)) {
    char path[128];
    run_schema_path(&p, path, sizeof path);
    return fail(err, errlen, "%s: expected %s%s", path, run_schema_type_name(p.field->type),
                p.present ? "" : ", missing");
  }
  const json_t *list = get(doc, "benchmarks");
  if (check_context(get(doc, "context"), err, errlen)) return -1;
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
