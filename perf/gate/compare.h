/* Verdicts of the regression gate under policy version 5 (GATE_POLICY_VERSION, decide.h): a run against a
 * baseline of the same GPU, in three stages: the comparison side (reference.h: which of the baseline's runs),
 * adjust (adjust.h: what is done to the measures of both sides), decide (decide.h: the threshold, the test on
 * contexts, the floor, the verdict). compare_figures runs them in turn; check.c then confirms anything slower
 * in a fresh process and settles readings of other GPU kinds A/B. The rules named in capitals (TESTBED,
 * OWN_GPU_MIN_RUNS, KIND_COPY_WINDOW, HOST_ROUND_TRIP, GATE_RUN_NOISE, OUTLIER_CAP, LONG_TAIL,
 * HOST_ROUND_TRIP_MIN_RUNS, OTHER_KINDS, GATE_POLICY_VERSION) are explained where they are applied, and
 * LAUNCH_PROBE_SHOWN_ONLY here.
 *
 * LAUNCH_PROBE_SHOWN_ONLY: times are compared as measured, on both sides. Each run's launch probe (an empty
 * kernel) is shown in the evidence (launch_probe_ns), never taken off: within a testbed the probe moves on its
 * own (one process at 5.30 us against 4.68-4.95 us, its kernels unmoved), and taken off it would widen
 * thresholds to 11-13 % where the runs are 1-2 % apart (docs/RESULTS.md, "Launch probe shown only"). */
#ifndef PERF_GATE_COMPARE_H
#define PERF_GATE_COMPARE_H

#include "perf/gate/adjust.h"
#include "perf/gate/decide.h"
#include "perf/gate/figures.h"
#include "perf/gate/reference.h"

/* How many CUDA contexts gate check asks the benchmark to measure short benchmarks in: the
 * mean of 16 context medians of a 7 us kernel spreads about 0.9 % between processes on an
 * H100, against 4.4 % for one context (docs/RESULTS.md, "Contexts in one process"). */
#define GATE_CONTEXTS 16

/* ... and the long ones in the first 4 of them, with min_time / 4 each (about what one context
 * took before): the mean of 4 context medians of tf32_wmma 1024^3 spreads 0.21 % between
 * processes on an H100, against 0.77 % for one context (docs/RESULTS.md, "Long benchmarks in
 * four contexts"). */
#define GATE_LONG_CONTEXTS 4

typedef struct comparison {
  const char *name;
  verdict v;
  double base_ns, run_ns; /* times in the metric (copy ratio: ns scaled to the baseline's copy speed): the
                             run's is the mean of its context medians, the baseline's the median of its runs' */
  double delta;           /* run / base - 1: positive means slower */
  double threshold;       /* max(tolerance, k_noise * noise); own_tolerance against the GPU's own runs */
  double noise;           /* the baseline's between-run noise, as a fraction: the largest amount by which
                             a run was slower than the comparison side's median (against the GPU's own runs:
                             than its GPU's median). Only slower runs count, since only a slower run
                             can fail: a GPU kind that runs faster says nothing of how slow one can be.
                             Per run, not per GPU (GATE_RUN_NOISE) */
  int own_gpu;            /* compared with the baseline's runs on the run's own GPU (OWN_GPU_MIN_RUNS) */
  int host_round_trip;    /* it times a host round trip: compared with all GPUs, never a GPU kind (HOST_ROUND_TRIP) */
  int same_kind;          /* else with those on GPUs of its GPU kind (KIND_COPY_WINDOW); else with all */
  size_t kind_gpus;       /* how many GPUs of the run's GPU kind have runs of this benchmark (all: fewer than
                             KIND_MIN_GPUS; a benchmark blessed on other kinds alone is judged against them) */
  size_t base_gpus;       /* how many GPUs the baseline's side comes from */
  double p_slower;        /* test on contexts: the run's context medians longer than the baseline's */
  double p_faster;
  size_t base_runs, base_contexts, base_samples; /* the evidence behind each side (contexts kept) */
  size_t run_contexts, run_samples;
  size_t base_set_aside, run_set_aside; /* contexts set aside as interrupted (kept_contexts) */
  double base_gbps, run_gbps;
  double base_copy_frac, run_copy_frac; /* bandwidth as a fraction of the copy probe (0: unknown) */
  /* How much longer the run's launch probe took than the baseline's (the medians of their runs):
   * evidence only (LAUNCH_PROBE_SHOWN_ONLY). NAN: a side has no probe. */
  double launch_probe_ns;
  const char *testbed;   /* the run's testbed, which the baseline's side was limited to; "" none (TESTBED) */
  int no_testbed_runs;   /* "new" because the baseline has this benchmark from other testbeds only */
  int library_reference; /* a library's kernel (cuBLAS, CUB, cudaMemcpy): beyond its threshold it marks the run
                             "environment changed" and never fails alone (verdict_fails) */
  unsigned reasons;      /* REASON_* bits: why the verdict is what it is (reason_names) */
  const char *against;   /* NULL: judged against the baseline; else A/B against this revision (ab.c) */
} comparison;

/* Compares every benchmark of `base` and `run` (by name). Returns the number
 * of comparisons in *out (malloc'ed; free with free()). Baseline entries
 * come first in baseline order, then new ones. */
size_t compare_figures(const gate_figures *base, const gate_figures *run, const gate_policy *p, comparison **out);

/* Which runs the baseline's side of c was (reference.h, reference_which). */
gate_reference reference_of(const comparison *c);

#endif
