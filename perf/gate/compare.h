/* Verdicts of the regression gate: a run against a baseline of the same GPU. */
#ifndef PERF_GATE_COMPARE_H
#define PERF_GATE_COMPARE_H

#include "perf/gate/figures.h"

typedef enum { VERDICT_FASTER, VERDICT_SAME, VERDICT_SLOWER, VERDICT_NEW, VERDICT_MISSING } verdict;

/* What is compared: the kernel's time, or its time relative to the
 * device-to-device copy measured in the same process (which cancels a
 * machine whose memory is a little faster or slower as a whole). */
typedef enum { METRIC_TIME, METRIC_COPY_RATIO } gate_metric;

#define GATE_MAX_FAMILY_TOLERANCES 16

/* How many CUDA contexts gate check asks the benchmark to measure short benchmarks in: the
 * mean of 16 context medians of a 7 us kernel spreads about 0.9 % between processes on an
 * H100, against 4.4 % for one context (docs/RESULTS.md, "Contexts in one process"). */
#define GATE_CONTEXTS 16

/* ... and the long ones in the first 4 of them, with min_time / 4 each (about what one context
 * took before): the mean of 4 context medians of tf32_wmma 1024^3 spreads 0.21 % between
 * processes on an H100, against 0.77 % for one context (docs/RESULTS.md, "Long benchmarks in
 * four contexts"). */
#define GATE_LONG_CONTEXTS 4

/* A run is compared with the baseline's runs on its own GPU (same context.gpu.uuid) when the
 * baseline holds at least this many of them; else with all the baseline's runs. GPUs of one model
 * differ by up to 3.8 % in some long kernels and by 0.8 us in memset + kernel variants between
 * kinds of host, a GPU's own runs by a few tenths of a percent (docs/RESULTS.md), so a runner
 * blessed into the baseline is held to own_tolerance where a GPU outside it cannot be. Against its
 * own runs the noise (threshold) is the most a run exceeded its GPU's median, over every
 * GPU of the baseline with two runs or more, times are as measured (no launch probe: the same
 * host; the probe's spread between processes would only add to it), a short benchmark is tested
 * on its contexts (Welch) and a long one with the spread of a run pooled within those GPUs. */
#define OWN_GPU_MIN_RUNS 2

/* A GPU outside the baseline (or with one run in it) is compared with the baseline's GPUs of its
 * kind when there are at least KIND_MIN_GPUS of them, else with all. GPUs of one model come in
 * kinds: the H200s measured fall into three whose copy probes (context.copy_bandwidth_GBps) are
 * about 4200, 4225 and 4250 GB/s, under 0.1 % apart within a kind and 0.4 % between kinds, and
 * whose kernels differ by up to 3.5 % (transpose/unroll4_row 8192^2) where one GPU's runs agree
 * to 0.1 % (docs/RESULTS.md, "Kinds of H200"). A GPU of the baseline is of the run's kind when
 * its copy probe (the median of its runs') lies within KIND_COPY_WINDOW of the run's. Judged so
 * against the others, each GPU of the baseline left out in turn, 11 % of the H200's thresholds
 * exceed the goal (5 % short, 3 % long) where 32 % did against all, with the same one delta over
 * its threshold; the H100s measured are one kind (copy within 0.10 %). */
#define KIND_COPY_WINDOW 0.002

/* GATE_RUN_NOISE: a GPU outside the baseline is allowed 3 x the most any one run of the baseline
 * was slower than the reference's median: its own run is one process on one GPU, so its offset is
 * a GPU's and a process's together, which only a single run of the baseline shows. Allowing 3 x
 * the spread between GPUs' medians instead (each GPU's runs averaged) was tried (2026-11-25): it
 * cut the H100's thresholds over the goal from 5.4 % to 0.8 % with each GPU left out in turn, but
 * on H100 GPU-202ece17, outside the baseline, dot/tree_host_finish 2^24 (host work in the timed
 * region) was confirmed slower in one of 7 unchanged rounds: +4.70 %, re-measured +3.69 %,
 * allowed 3.0 % where the slowest baseline run of its kind (about +1.6 %) allows 4.9 %
 * (docs/RESULTS.md, "A false alarm from noise taken per GPU"). */
#define KIND_MIN_GPUS 2

/* HOST_ROUND_TRIP: a benchmark whose timed region waits on the host (bench_case.host_round_trip, the run
 * JSON's "host_round_trip": dot/tree_host_finish) is compared with all the baseline's GPUs, never with a
 * kind: how long the round trip takes is set by the host and its process, not by the GPU's kind. Two
 * GPUs of the 4229 kind read it at 19.0 us at 2^20 and a third H200 of that kind at 22.4 us, a false
 * alarm against those two (+13.8 %, re-measured +17.8 %, allowed 9.4 %); against all H200s it is
 * allowed 33 % (docs/RESULTS.md, "Host round trips are judged against every host"). A runner
 * blessed in is still compared with its own runs. */

/* TESTBED: the baseline's side is only ever the runs of the run's own testbed (the runner's class of
 * host: GPU model, GPU count and NVLink, CPU model, driver; perf/runner/testbed.h). Hosts of one GPU
 * model differ: on 2- and 4-GPU H100 hosts an empty kernel's launch reads 1.6-1.75 us more than on
 * the one-GPU hosts of the baselines, and unchanged memset + kernel benchmarks failed there at +8 to
 * +10 % (docs/RESULTS.md). A benchmark with no run of the run's testbed is "new" for it, said in the
 * evidence ("no run of this testbed"): another testbed never stands in. A run without a testbed (a
 * file from before the field) is compared with every run, and says so. Within the testbed the rules
 * below (own GPU, kind, all) apply as before. */

/* GATE_POLICY_VERSION: the decision rule every verdict was made with (verdicts.json); it changes when
 * the rule does. 3: testbeds; library references never fail a merge alone. */
#define GATE_POLICY_VERSION 3

typedef struct {
  char family[64];
  double tolerance;
} family_tolerance;

typedef struct {
  double tolerance; /* smallest slowdown that can fail, as a fraction (0.03) */
  double own_tolerance; /* ... against the GPU's own runs (0.02: a 3 % slowdown is then caught
                           whatever the run's own noise; OWN_GPU_MIN_RUNS) */
  double k_noise;   /* ... or this many times the baseline's between-run noise, if larger */
  double alpha;     /* significance level of the one-sided test on context medians */
  double min_delta_ns; /* ... and the change must exceed this in absolute time: launch and
                          host-sync latency varies by a few us between machines */
  gate_metric metric;
  family_tolerance fam[GATE_MAX_FAMILY_TOLERANCES];
  size_t nfam;
} gate_policy;

gate_policy default_policy(void);
/* A policy flag's value: the whole of v as a number strictly between lo and hi into *x, 0; else 1
 * ("2x", "", "nan" and the bounds themselves are refused). */
int policy_number(const char *v, double lo, double hi, double *x);
/* Parses "family=fraction" (e.g. "reduce=0.07") into the policy. 0 ok, else a message. */
int add_family_tolerance(gate_policy *p, const char *spec, char *err, size_t errlen);
/* A family's tolerance if one was given for it, else own_tolerance (against the GPU's own runs) or
 * tolerance. */
double tolerance_for(const gate_policy *p, const char *bench_name, int own_gpu);

typedef struct {
  const char *name;
  verdict v;
  double base_ns, run_ns; /* times in the metric (copy ratio: ns scaled to the baseline's copy speed): the
                             run's is the mean of its context medians, the baseline's the median of its runs' */
  double delta;           /* run / base - 1: positive means slower */
  double threshold;       /* max(tolerance, k_noise * noise); own_tolerance against the GPU's own runs */
  double noise;           /* the baseline's spread between runs, as a fraction: the largest amount by which
                             a run was slower than the reference's median (against the GPU's own runs:
                             than its GPU's median). Only slower runs count, since only a slower run
                             can fail: a host kind that runs faster says nothing of how slow one can be.
                             Per run, not per GPU (GATE_RUN_NOISE) */
  int own_gpu;            /* compared with the baseline's runs on the run's own GPU (OWN_GPU_MIN_RUNS) */
  int host_round_trip;    /* it times a host round trip: compared with all GPUs, never a kind (HOST_ROUND_TRIP) */
  int same_kind;          /* else with those on GPUs of its kind (KIND_COPY_WINDOW); else with all */
  size_t kind_gpus;       /* how many GPUs of the run's kind have runs of this benchmark (all: fewer than
                             KIND_MIN_GPUS; a benchmark blessed on other kinds alone is judged against them) */
  size_t base_gpus;       /* how many GPUs the baseline's side comes from */
  double p_slower;        /* test on contexts: the run's context medians longer than the baseline's */
  double p_faster;
  size_t base_runs, base_contexts, base_samples; /* the evidence behind each side (contexts kept) */
  size_t run_contexts, run_samples;
  int run_short;          /* the run measured it in every context of its --contexts (a short benchmark) */
  size_t base_set_aside, run_set_aside; /* contexts set aside as interrupted (kept_contexts) */
  double base_gbps, run_gbps;
  double base_copy_frac, run_copy_frac; /* bandwidth as a fraction of the copy probe (0: unknown) */
  /* How much longer the run's launch probe took than the baseline's (its runs' median), and how
   * much of that both sides' times above are net of: all of it, or for a benchmark measured in
   * contexts as much as the run's kernels bear out (LAUNCH_BORNE_OUT in compare.c). NAN: a side
   * has no probe, times are as measured. */
  double launch_probe_ns, launch_shift_ns;
  size_t probes_ignored; /* runs of either side whose probe was interrupted (probe_interrupted): as measured */
  const char *testbed;    /* the run's testbed, which the baseline's side was limited to; "" none (TESTBED) */
  int no_testbed_runs;    /* "new" because the baseline has this benchmark from other testbeds only */
  int library_reference;  /* a library's kernel (cuBLAS, CUB, cudaMemcpy): beyond its threshold it marks the run
                             "environment changed" and never fails alone (verdict_fails) */
  unsigned reasons;       /* REASON_* bits: why the verdict is what it is (reason_names) */
} comparison;

/* Why a verdict is what it is: each criterion of judge() that held, and what happened after. */
enum {
  REASON_BEYOND_THRESHOLD = 1u << 0, /* |delta| above the threshold, in the verdict's direction */
  REASON_SIGNIFICANT = 1u << 1,      /* the test on contexts gave p < alpha */
  REASON_ABOVE_FLOOR = 1u << 2,      /* the change exceeds min_delta_ns */
  REASON_CONFIRMED = 1u << 3,        /* the re-measure in a fresh process agreed */
  REASON_NOT_CONFIRMED = 1u << 4,    /* ... or did not: "same" */
  REASON_LIBRARY_REFERENCE = 1u << 5,/* slower, but a library's kernel: the environment changed */
  REASON_NO_TESTBED_RUNS = 1u << 6,  /* new for this testbed */
  REASON_NO_TESTBED = 1u << 7,       /* the run names no testbed: compared with every testbed's runs */
  REASON_FEW_HOST_RUNS = 1u << 8,    /* a host round trip with under HOST_ROUND_TRIP_MIN_RUNS runs: cannot fail */
};

/* HOST_ROUND_TRIP_MIN_RUNS: a benchmark that times a host round trip fails only against this many
 * runs of its testbed or more. Its time differs from one process to the next by up to 7 %, and one
 * process in three runs in a slow state (+18 %, docs/RESULTS.md), which two or three runs rarely
 * show: on a 2-GPU H200 host blessed in from two soak rounds, dot/tree_host_finish 2^20 read +4.1 %
 * in the next, unchanged, round against 3.0 % allowed. Until its testbed has that many runs it is
 * reported ("same", reason host_round_trip_under_6_runs) and does not gate. */
#define HOST_ROUND_TRIP_MIN_RUNS 6
/* The names of the bits of `reasons`, comma-separated, into buf ("" when none). */
void reason_names(unsigned reasons, char *buf, size_t len);
/* Whether c fails the gate: slower (a library reference aside) or missing. */
int verdict_fails(const comparison *c);
/* The testbed all of f's runs share; "" when they have none or differ. */
const char *testbed_of(const gate_figures *f);

/* The launch probe behind a measure: the --contexts one for a benchmark measured in several
 * contexts, else the first context's. 0: not measured. */
double launch_probe_of(const gate_figures *f, const gate_measure *m);
/* Whether a run's launch probe was interrupted: more than twice the reference, or under half. */
int probe_interrupted(double probe, double ref);
/* A benchmark's launch probe over its runs (their median), which the gate takes times net of;
 * 0 when a run has none (then neither side is adjusted). */
double launch_reference(const gate_figures *f, const gate_bench *b);

/* How many GPUs (context.gpu.uuid) b's runs were made on. */
size_t gpus_of(const gate_figures *f, const gate_bench *b);
/* The copy probe of GPU `uuid`: the median of its runs' in f (0: none). */
double gpu_copy(const gate_figures *f, const char *uuid);
/* How many GPUs of the kind whose copy probe is `copy` (KIND_COPY_WINDOW) b's runs were made on. */
size_t kind_gpus_of(const gate_figures *f, const gate_bench *b, double copy);

/* Copies into `kept` the per-context values v[0..n) that are not outliers of their run (more than
 * 5 scaled MADs, and 10 %, from its median; only with 4 or more contexts); returns how many. */
size_t kept_contexts(const double *v, size_t n, double *kept);

/* Compares every benchmark of `base` and `run` (by name). Returns the number
 * of comparisons in *out (malloc'ed; free with free()). Baseline entries
 * come first in baseline order, then new ones. */
size_t compare_figures(const gate_figures *base, const gate_figures *run, const gate_policy *p, comparison **out);

const char *verdict_name(verdict v);

/* What the baseline's side of a comparison was: the run's own GPU's runs, its kind's, all GPUs
 * (fewer than KIND_MIN_GPUS of its kind), all GPUs with none of its kind among them, whose
 * difference of kind reads as a change, or all GPUs for a benchmark that times a host round trip
 * (HOST_ROUND_TRIP). */
typedef enum { REF_OWN_GPU, REF_ITS_KIND, REF_ALL_GPUS, REF_OTHER_KINDS, REF_EVERY_HOST } gate_reference;
gate_reference reference_of(const comparison *c);

#endif
