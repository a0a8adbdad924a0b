/* Verdicts of the regression gate under policy version 6 (GATE_POLICY_VERSION, decide.h): a run against a
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

/* struct comparison, the verdict of one benchmark with its evidence, is defined in decide.h: decide_bench fills it. */

/* Compares every benchmark of `base` and `run` (by name). Returns the number
 * of comparisons in *out (malloc'ed; free with free()). Baseline entries
 * come first in baseline order, then new ones. */
size_t compare_figures(const gate_figures *base, const gate_figures *run, const gate_policy *p, comparison **out);

/* Which runs the baseline's side of c was (reference.h, reference_which). */
gate_reference reference_of(const comparison *c);

#endif
