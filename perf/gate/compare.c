/* compare_figures: a run against a baseline, each benchmark through the three stages in turn:
 * the comparison side (reference.c) -> adjust (adjust.c) -> decide (decide.c). */
#include "perf/gate/compare.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

gate_reference reference_of(const comparison *c) {
  return reference_which(c->own_gpu, c->host_round_trip, c->same_kind, c->kind_gpus);
}

/* Compares baseline benchmark bb with the run's (missing if the run has none) into x. */
static void compare_bench(const gate_figures *base, const gate_figures *run, const gate_policy *p, const gate_bench *bb,
                          double copy_ref, double run_copy, const double *copies, comparison *x) {
  const gate_bench *rb = find_bench(run, bb->name);
  memset(x, 0, sizeof *x);
  x->name = bb->name;
  /* 1. The comparison side: the baseline's runs on the run's own GPU, else its GPU kind's, else all (reference.h). */
  bench_reference ref = reference_for(base, run, bb, rb, run_copy, copies);
  x->own_gpu = ref.own_gpu;
  x->host_round_trip = ref.host_round_trip;
  x->kind_gpus = ref.kind_gpus;
  x->same_kind = ref.same_kind;
  x->base_runs = ref.runs;
  x->base_gpus = ref.gpus;
  /* 2. Adjust: both sides' measures, interrupted contexts set aside (adjust.h). */
  adjusted a = adjust_bench(base, run, &ref, rb, p->metric, copy_ref);
  x->launch_probe_ns = a.launch_probe_ns;
  x->base_ns = a.base.time;
  x->noise = a.noise;
  x->base_contexts = a.base.ncontexts;
  x->base_set_aside = a.base.set_aside;
  x->base_samples = a.base.nsamples;
  x->base_gbps = bb->bytes_per_second / 1e9;
  x->base_copy_frac = copy_fraction(base, bb);
  /* 3. Decide: the threshold, then the verdict (decide.h). */
  x->threshold = threshold_for(p, bb->name, x->own_gpu, x->noise);
  if (!rb) {
    x->v = VERDICT_MISSING;
  } else {
    x->run_gbps = rb->bytes_per_second / 1e9;
    x->run_copy_frac = copy_fraction(run, rb);
    decide_bench(x, &a, p);
  }
  free_adjusted(&a);
  free_bench_reference(&ref);
}

/* Compares base (limited to the run's testbed, TESTBED) with run. */
size_t compare_figures(const gate_figures *full_base, const gate_figures *run, const gate_policy *p, comparison **out) {
  const char *testbed = testbed_of(run);
  gate_figures limited;
  const gate_figures *base = full_base;
  if (testbed[0]) {
    testbed_view(full_base, testbed, &limited);
    base = &limited;
  }
  comparison *c = calloc(base->n + run->n + 1, sizeof *c);
  size_t n = 0;
  double copy_ref = median_copy(base), run_copy = median_copy(run);
  double *copies = gpu_copies(base); /* each baseline run's GPU copy probe, for the GPU kinds */
  for (size_t i = 0; i < base->n; i++) compare_bench(base, run, p, &base->b[i], copy_ref, run_copy, copies, &c[n++]);
  for (size_t i = 0; i < run->n; i++) {
    if (find_bench(base, run->b[i].name)) continue;
    comparison *x = &c[n++];
    x->name = run->b[i].name;
    x->v = VERDICT_NEW;
    x->no_testbed_runs = find_bench(full_base, run->b[i].name) && !has_testbed_runs(full_base, testbed, run->b[i].name);
    if (x->no_testbed_runs) x->reasons |= REASON_NO_TESTBED_RUNS;
    x->launch_probe_ns = NAN;
    scaled rs = scale_bench(run, &run->b[i], p->metric, copy_ref > 0 ? copy_ref : median_copy(run));
    x->run_ns = rs.time;
    x->run_contexts = rs.ncontexts;
    x->run_samples = rs.nsamples;
    x->run_gbps = run->b[i].bytes_per_second / 1e9;
    x->run_copy_frac = copy_fraction(run, &run->b[i]);
    free(rs.contexts);
  }
  for (size_t i = 0; i < n; i++) {
    const gate_bench *rb = find_bench(run, c[i].name);
    label_verdict(&c[i], testbed, rb && rb->library_reference);
  }
  free(copies);
  if (base == &limited) free_testbed_view(&limited);
  *out = c;
  return n;
}
