/* The comparison side: which runs of the baseline a benchmark is compared with (reference.h). */
#include "perf/gate/reference.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int by_value(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

double gate_median(double *v, size_t n) {
  if (n == 0) return NAN;
  qsort(v, n, sizeof *v, by_value);
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

const char *testbed_of(const gate_figures *f) {
  if (f->nruns == 0 || !f->runs[0].testbed[0]) return "";
  for (size_t i = 1; i < f->nruns; i++)
    if (strcmp(f->runs[i].testbed, f->runs[0].testbed) != 0) return "";
  return f->runs[0].testbed;
}

int has_testbed_runs(const gate_figures *base, const char *testbed, const char *bench) {
  if (!bench) { /* any run of the baseline's (a family's baseline holds every run: one never blessed has no benchmark) */
    for (size_t r = 0; r < base->nruns; r++)
      if (!testbed[0] || strcmp(base->runs[r].testbed, testbed) == 0) return 1;
    return 0;
  }
  for (size_t i = 0; i < base->n; i++) {
    const gate_bench *b = &base->b[i];
    if (strcmp(b->name, bench) != 0) continue;
    for (size_t r = 0; r < b->nruns; r++)
      if (!testbed[0] || (b->runs[r].run < base->nruns && strcmp(base->runs[b->runs[r].run].testbed, testbed) == 0))
        return 1;
  }
  return 0;
}

/* A shallow view of base whose benchmarks keep only their runs made on `testbed`; a benchmark with
 * none is left out. Free with free_testbed_view. */
void testbed_view(const gate_figures *base, const char *testbed, gate_figures *view) {
  *view = *base;
  view->b = calloc(base->n + 1, sizeof *view->b);
  view->n = 0;
  for (size_t i = 0; i < base->n; i++) {
    const gate_bench *b = &base->b[i];
    gate_bench v = *b;
    v.runs = malloc((b->nruns + 1) * sizeof *v.runs);
    v.nruns = 0;
    for (size_t r = 0; r < b->nruns; r++)
      if (b->runs[r].run < base->nruns && strcmp(base->runs[b->runs[r].run].testbed, testbed) == 0)
        v.runs[v.nruns++] = b->runs[r]; /* has_testbed_runs(base, testbed, b->name) holds for what is kept */
    if (v.nruns)
      view->b[view->n++] = v;
    else
      free(v.runs);
  }
}

void free_testbed_view(gate_figures *view) {
  for (size_t i = 0; i < view->n; i++) free(view->b[i].runs);
  free(view->b);
}

const char *measure_gpu(const gate_figures *f, const gate_measure *m) {
  return m->run < f->nruns ? f->runs[m->run].gpu_uuid : "";
}

/* 1 when run r of b is the first of b's runs on its GPU. */
int first_on_its_gpu(const gate_figures *f, const gate_bench *b, size_t r) {
  for (size_t q = 0; q < r; q++)
    if (strcmp(measure_gpu(f, &b->runs[q]), measure_gpu(f, &b->runs[r])) == 0) return 0;
  return 1;
}

/* The measures of b made on GPU `uuid` ("" matches none): a shallow view, free its runs only. */
gate_bench gpu_runs(const gate_figures *f, const gate_bench *b, const char *uuid) {
  gate_bench v = *b;
  v.runs = malloc((b->nruns + 1) * sizeof *v.runs);
  v.nruns = 0;
  for (size_t r = 0; r < b->nruns; r++)
    if (uuid[0] && strcmp(measure_gpu(f, &b->runs[r]), uuid) == 0) v.runs[v.nruns++] = b->runs[r];
  return v;
}

double gpu_copy(const gate_figures *f, const char *uuid) {
  double *v = malloc((f->nruns + 1) * sizeof *v);
  size_t n = 0;
  for (size_t i = 0; i < f->nruns; i++)
    if (strcmp(f->runs[i].gpu_uuid, uuid) == 0 && f->runs[i].copy_bytes_per_second > 0)
      v[n++] = f->runs[i].copy_bytes_per_second;
  double m = n ? gate_median(v, n) : 0;
  free(v);
  return m;
}

typedef struct {
  const char *uuid;
  size_t run;
} run_of_gpu;

static int by_uuid(const void *a, const void *b) {
  return strcmp(((const run_of_gpu *)a)->uuid, ((const run_of_gpu *)b)->uuid);
}

double *gpu_copies(const gate_figures *f) {
  double *out = calloc(f->nruns + 1, sizeof *out), *v = malloc((f->nruns + 1) * sizeof *v);
  run_of_gpu *by = malloc((f->nruns + 1) * sizeof *by);
  for (size_t i = 0; i < f->nruns; i++) by[i] = (run_of_gpu){f->runs[i].gpu_uuid, i};
  qsort(by, f->nruns, sizeof *by, by_uuid);
  for (size_t i = 0, j; i < f->nruns; i = j) { /* each GPU's runs, i..j */
    size_t n = 0;
    for (j = i; j < f->nruns && strcmp(by[j].uuid, by[i].uuid) == 0; j++)
      if (f->runs[by[j].run].copy_bytes_per_second > 0) v[n++] = f->runs[by[j].run].copy_bytes_per_second;
    double m = n ? gate_median(v, n) : 0;
    for (size_t k = i; k < j; k++) out[by[k].run] = m;
  }
  free(by);
  free(v);
  return out;
}

gate_bench kind_runs(const gate_figures *f, const gate_bench *b, double copy, const double *copies) {
  gate_bench v = *b;
  v.runs = malloc((b->nruns + 1) * sizeof *v.runs);
  v.nruns = 0;
  double *own = copies || copy <= 0 ? NULL : gpu_copies(f);
  const double *per_run = copies ? copies : own;
  for (size_t r = 0; r < b->nruns && copy > 0; r++) {
    size_t k = b->runs[r].run;
    double c = k < f->nruns ? per_run[k] : gpu_copy(f, "");
    if (c > 0 && fabs(c / copy - 1) <= KIND_COPY_WINDOW) v.runs[v.nruns++] = b->runs[r];
  }
  free(own);
  return v;
}

static int by_string(const void *a, const void *b) { return strcmp(*(const char *const *)a, *(const char *const *)b); }

/* The distinct GPUs of b's runs, in one sort (first_on_its_gpu for each run is quadratic). */
size_t gpus_of(const gate_figures *f, const gate_bench *b) {
  const char **uuid = malloc((b->nruns + 1) * sizeof *uuid);
  for (size_t r = 0; r < b->nruns; r++) uuid[r] = measure_gpu(f, &b->runs[r]);
  qsort(uuid, b->nruns, sizeof *uuid, by_string);
  size_t n = 0;
  for (size_t r = 0; r < b->nruns; r++) n += r == 0 || strcmp(uuid[r], uuid[r - 1]) != 0;
  free(uuid);
  return n;
}

size_t kind_gpus_of(const gate_figures *f, const gate_bench *b, double copy) {
  gate_bench kind = kind_runs(f, b, copy, NULL);
  size_t n = gpus_of(f, &kind);
  free(kind.runs);
  return n;
}

gate_reference reference_which(int own_gpu, int host_round_trip, int same_kind, size_t kind_gpus) {
  if (own_gpu) return REF_OWN_GPU;
  if (host_round_trip) return REF_EVERY_HOST;
  if (same_kind) return REF_ITS_KIND;
  return kind_gpus ? REF_ALL_GPUS : REF_OTHER_KINDS;
}

bench_reference reference_for(const gate_figures *base, const gate_figures *run, const gate_bench *bb,
                              const gate_bench *rb, double run_copy, const double *copies) {
  bench_reference r = {.all = bb};
  /* The comparison side: the baseline's runs on the run's own GPU when it has enough of them (a
   * runner that was blessed into the baseline), else its GPU kind's or all of them (reference.h). */
  r.host_round_trip = bb->host_round_trip || (rb && rb->host_round_trip);
  r.own = gpu_runs(base, bb, rb && rb->nruns > 0 ? measure_gpu(run, &rb->runs[0]) : "");
  r.own_gpu = r.own.nruns >= (r.host_round_trip ? HOST_ROUND_TRIP_MIN_RUNS : OWN_GPU_MIN_RUNS);
  /* Else the GPUs of its kind, when the baseline has enough of them (KIND_MIN_GPUS); never for a
   * benchmark that times a host round trip (HOST_ROUND_TRIP): every host. */
  r.kind = kind_runs(base, bb, rb && !r.own_gpu && !r.host_round_trip ? run_copy : 0, copies);
  r.kind_gpus = gpus_of(base, &r.kind);
  r.same_kind = !r.own_gpu && r.kind_gpus >= KIND_MIN_GPUS;
  r.which = reference_which(r.own_gpu, r.host_round_trip, r.same_kind, r.kind_gpus);
  const gate_bench *ref = reference_runs(&r);
  r.runs = ref->nruns;
  r.gpus = gpus_of(base, ref);
  return r;
}

const gate_bench *reference_runs(const bench_reference *r) {
  return r->own_gpu ? &r->own : r->same_kind ? &r->kind : r->all;
}

void free_bench_reference(bench_reference *r) {
  free(r->own.runs);
  free(r->kind.runs);
}
