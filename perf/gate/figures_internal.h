/* The gate's readers and writers of run and baseline files, among themselves (figures.c, json_read.c,
 * run_reader.c, baseline_store.c, figures_merge.c): the reading context whose messages name the file and field,
 * the JSON field readers, and small helpers. Not for other code: figures.h is the API. */
#ifndef PERF_GATE_FIGURES_INTERNAL_H
#define PERF_GATE_FIGURES_INTERNAL_H

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "perf/common/fail.h"
#include "perf/common/physical_time.h"
#include "perf/gate/figures.h"

static inline double *copy_doubles(const double *x, size_t n) {
  double *y = malloc((n + 1) * sizeof *y);
  if (y && n) memcpy(y, x, n * sizeof *y);
  return y;
}

static inline double mean_of(const double *x, size_t n) {
  double sum = 0;
  for (size_t i = 0; i < n; i++) sum += x[i];
  return n ? sum / (double)n : NAN;
}

static inline int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* Whether two runs' warm-ups differ: closer than 1e-9 s they are one (a number that went through
 * JSON and back). */
static inline int warmups_differ(double a_s, double b_s) { return fabs(a_s - b_s) > 1e-9; }

/* How a run's short benchmarks were measured, for messages: a run file without contexts_below_s (made
 * before --contexts) reads as one context and 0 us, which "under 0 us in 1 CUDA contexts" would say. */
static inline const char *contexts_method(const gate_run_info *r, char *buf, size_t len) {
  if (r->contexts_below_s <= 0 && r->contexts <= 1)
    snprintf(buf, len, "in one context per run (a run made before --contexts)");
  else
    snprintf(buf, len, "with short benchmarks (under %g us) in %d CUDA context%s", r->contexts_below_s * 1e6,
             r->contexts, r->contexts == 1 ? "" : "s");
  return buf;
}

/* A file being read: its path, where a message goes, and whether reading failed (the first failure wins). */
typedef struct {
  const char *path;
  char *err;
  size_t errlen;
  int failed;
  int baseline;        /* a baseline, not a run file: a bad figure there is fixed by re-blessing it */
  json_t *repetitions; /* a run file: name -> the repetition_index values of its iteration entries read so far */
} ctx;

typedef struct {
  const char *where, *mem_clock, *driver, *runtime;
} gpu_fields;
extern const gpu_fields kBaselineGpu, kRunGpu;

/* The JSON field readers (json_read.c): each sets c->failed with a message naming the file and field. */
const char *jr_type_name(const json_t *v);
json_t *jr_field(ctx *c, json_t *obj, const char *where, const char *key, int type);
double jr_positive(ctx *c, json_t *obj, const char *where, const char *key);
void jr_store_str(ctx *c, const char *where, const char *key, const char *s, char *dst, size_t len);
int jr_physical_ns(ctx *c, double x, const char *where, const char *key, long index);
int jr_append_ns(ctx *c, const json_t *a, double scale, const char *where, const char *key, double **x, size_t *n);
void jr_copy_str(ctx *c, json_t *obj, const char *where, const char *key, char *dst, size_t len);
int jr_read_measure(ctx *c, json_t *m, const char *where, size_t nruns, gate_measure *out);
void jr_read_flush_method(ctx *c, json_t *o, const char *where, const char *key, char *dst, size_t len);
void jr_optional_str(ctx *c, json_t *o, const char *where, const char *key, const char *otherwise, char *dst,
                     size_t len);
void jr_read_testbed(ctx *c, json_t *o, const char *where, char *dst, size_t len);
void jr_read_gpu_name(ctx *c, json_t *g, const char *where, gate_gpu *gpu);
int jr_int_in(ctx *c, json_t *v, const char *where, const char *key, int lo, int hi);
void jr_read_gpu(ctx *c, json_t *g, const gpu_fields *k, gate_gpu *gpu);
void jr_read_contexts_method(ctx *c, json_t *o, const char *where, gate_run_info *info, int required);
double jr_optional_nonnegative(ctx *c, json_t *o, const char *where, const char *key, const char *what,
                               const char *fix);
double jr_optional_probe(ctx *c, json_t *o, const char *where, const char *name);
double jr_optional_warmup(ctx *c, json_t *o, const char *where, const char *key, const char *fix);
void jr_read_launch_probe(ctx *c, json_t *cx, gate_run_info *info);
int jr_optional_flag(ctx *c, json_t *o, const char *where, const char *key);

#endif
