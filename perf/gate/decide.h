/* The gate's last stage, decide: the policy and the verdict of one benchmark from its adjusted
 * measures (adjust.h): the threshold, the test on contexts, the floor, and the reasons. Pure
 * functions: no I/O. */
#ifndef PERF_GATE_DECIDE_H
#define PERF_GATE_DECIDE_H

#include <stddef.h>

#include "perf/gate/adjust.h"

/* UNCHANGED: judged A/B, and its timed work is the same at the base and the change (fingerprint.h): not
 * measured, never fails. */
typedef enum { VERDICT_FASTER, VERDICT_SAME, VERDICT_SLOWER, VERDICT_NEW, VERDICT_MISSING, VERDICT_UNCHANGED } verdict;

#define GATE_MAX_FAMILY_TOLERANCES 16

/* GATE_POLICY_VERSION: the decision rule every verdict was made with (verdicts.json, trends.json); it changes
 * when the rule does. Today, 5: a run is compared with its testbed's runs (TESTBED) and library references never
 * fail a merge alone (since 3); times as measured, the launch probe shown only (LAUNCH_PROBE_SHOWN_ONLY,
 * compare.h; since 4); at most one context in eight set aside (OUTLIER_CAP, adjust.c); a long benchmark also
 * tested on its tail (LONG_TAIL, decide.c); a reading of other GPU kinds alone settled A/B (OTHER_KINDS,
 * check.c); a host round trip under 6 runs "same" either way (HOST_ROUND_TRIP_MIN_RUNS); since 6, a host round
 * trip is compared with its GPU's own runs only from 6 of them, else with every host (HOST_ROUND_TRIP). */
#define GATE_POLICY_VERSION 6

typedef struct {
  char family[64];
  double tolerance;
} family_tolerance;

typedef struct {
  double tolerance;     /* smallest slowdown that can fail, as a fraction (0.03) */
  double own_tolerance; /* ... against the GPU's own runs (0.02: a 3 % slowdown is then caught
                           whatever the run's own noise; OWN_GPU_MIN_RUNS) */
  double k_noise;       /* ... or this many times the baseline's between-run noise, if larger */
  double alpha;         /* significance level of the one-sided test on context medians */
  double min_delta_ns;  /* ... and the change must exceed this in absolute time: launch and
                          host-sync latency varies by a few us between machines */
  gate_metric metric;
  family_tolerance fam[GATE_MAX_FAMILY_TOLERANCES];
  size_t nfam;
} gate_policy;

gate_policy default_policy(void);
/* A policy flag's value: the whole of v as a number strictly between lo and hi into *x, 0; else 1
 * ("2x", "", "nan" and the bounds themselves are refused). */
int policy_number(const char *v, double lo, double hi, double *x);
/* POLICY_FLAGS: a flag that sets the decision rule, with its value, applied to p: tolerance, own_tolerance, k_noise,
 * alpha, min_delta_us, family_tolerance; the ranges live here alone, for every program that takes these flags (gate,
 * render, leave_one_gpu_out). 0: applied; 1: a bad value, err naming the flag and the range; -1: not one of them. */
int policy_flag(gate_policy *p, const char *name, const char *value, char *err, size_t errlen);
/* Parses "family=fraction" (e.g. "reduce=0.07") into the policy. 0 ok, else a message. */
int add_family_tolerance(gate_policy *p, const char *spec, char *err, size_t errlen);
/* A family's tolerance if one was given for it, else own_tolerance (against the GPU's own runs) or
 * tolerance. */
double tolerance_for(const gate_policy *p, const char *bench_name, int own_gpu);
/* The threshold: max(tolerance_for, k_noise x noise). */
double threshold_for(const gate_policy *p, const char *bench_name, int own_gpu, double noise);

/* Why a verdict is what it is: each criterion of judge() that held, and what happened after. */
enum {
  REASON_BEYOND_THRESHOLD = 1u << 0,    /* |delta| above the threshold, in the verdict's direction */
  REASON_SIGNIFICANT = 1u << 1,         /* the test on contexts gave p < alpha */
  REASON_ABOVE_FLOOR = 1u << 2,         /* the change exceeds min_delta_ns */
  REASON_CONFIRMED = 1u << 3,           /* the re-measure in a fresh process agreed */
  REASON_NOT_CONFIRMED = 1u << 4,       /* ... or did not: "same" */
  REASON_LIBRARY_REFERENCE = 1u << 5,   /* slower, but a library's kernel: the environment changed */
  REASON_NO_TESTBED_RUNS = 1u << 6,     /* new for this testbed */
  REASON_NO_TESTBED = 1u << 7,          /* the run names no testbed: compared with every testbed's runs */
  REASON_FEW_HOST_RUNS = 1u << 8,       /* a host round trip with under HOST_ROUND_TRIP_MIN_RUNS runs: cannot fail */
  REASON_SAME_TIMED_WORK = 1u << 9,     /* A/B: the same kernels, launches, memsets and copies on both sides */
  REASON_SAME_BINARY = 1u << 10,        /* A/B: the benchmark binaries are identical */
  REASON_BASE_LACKS_IT = 1u << 11,      /* new: the base revision has no such benchmark either */
  REASON_OTHER_KINDS_DIFFER = 1u << 12, /* the baseline's other GPU kinds alone read it slower or faster: A/B */
  REASON_OTHER_GPUS = 1u << 13,         /* a slower library reference judged against other GPUs than this one:
                                           their difference or the environment, which the run cannot tell apart */
};

/* The names of the bits of `reasons`, comma-separated, into buf ("" when none). */
void reason_names(unsigned reasons, char *buf, size_t len);

/* The verdict of one benchmark and the evidence behind it: compare_figures (compare.h) fills it through the three
 * stages, decide_bench sets the verdict; the reporters (gate_reporter.h) write it. Rules named in capitals are
 * explained where they are applied (compare.h lists them). */
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
/* The verdict of x (its threshold, noise, base_runs and host_round_trip set) from the adjusted
 * measures a of both sides: judge() (the threshold, the test on contexts, the floor, the reasons),
 * then a host round trip under HOST_ROUND_TRIP_MIN_RUNS runs that came out slower is "same". */
void decide_bench(comparison *x, const adjusted *a, const gate_policy *p);
/* The labels of a verdict that are the run's, not its measures': its testbed ("" none:
 * REASON_NO_TESTBED) and whether it is a library reference (slower: REASON_LIBRARY_REFERENCE; and, judged against
 * other GPUs than this one (own_gpu set before), REASON_OTHER_GPUS). */
void label_verdict(comparison *x, const char *testbed, int library_reference);
/* Whether c fails the gate: slower (a library reference aside) or missing. */
int verdict_fails(const comparison *c);
const char *verdict_name(verdict v);

#endif
