/* The gate's first stage, the comparison side: which runs of the baseline a run's benchmark is compared with
 * (its testbed's; within it its own GPU's, its GPU kind's, or all; every host for a host round trip). The stage
 * keeps its old name in code (reference.h, bench_reference, gate_reference) and verdicts.json its field
 * "reference"; in words it is the comparison side, never a library reference or the fp64 reference.
 * Pure functions over the figures: no I/O, no policy. Then adjust.h, then decide.h; compare.c runs
 * the three in turn. */
#ifndef PERF_GATE_REFERENCE_H
#define PERF_GATE_REFERENCE_H

#include <stddef.h>

#include "perf/gate/figures.h"

/* A run is compared with the baseline's runs on its own GPU (same context.gpu.uuid) when the
 * baseline holds at least this many of them; else with all the baseline's runs. GPUs of one model
 * differ by up to 3.8 % in some long kernels and by 0.8 us in memset + kernel variants between
 * classes of host, a GPU's own runs by a few tenths of a percent (docs/RESULTS.md), so a runner
 * blessed into the baseline is held to own_tolerance where a GPU outside it cannot be. Against its
 * own runs the noise (threshold) is the most a run exceeded its GPU's median, over every
 * GPU of the baseline with two runs or more, times are as measured (no launch probe: the same
 * host; the probe's spread between processes would only add to it), a short benchmark is tested
 * on its contexts (Welch) and a long one with the spread of a run pooled within those GPUs. */
#define OWN_GPU_MIN_RUNS 2

/* A GPU outside the baseline (or with one run in it) is compared with the baseline's GPUs of its
 * GPU kind when there are at least KIND_MIN_GPUS of them, else with all. GPUs of one model come in
 * GPU kinds: the H200s measured fall into three whose copy probes (context.copy_bandwidth_GBps) are
 * about 4200, 4225 and 4250 GB/s, under 0.1 % apart within a kind and 0.4 % between kinds, and
 * whose kernels differ by up to 3.5 % (transpose/unroll4_row 8192^2) where one GPU's runs agree
 * to 0.1 % (docs/RESULTS.md, "Kinds of H200"). A GPU of the baseline is of the run's GPU kind when
 * its copy probe (the median of its runs') lies within KIND_COPY_WINDOW of the run's. Judged so
 * against the others, each GPU of the baseline left out in turn, 11 % of the H200's thresholds
 * exceed the goal (5 % short, 3 % long) where 32 % did against all, with the same one delta over
 * its threshold; the H100s measured are one GPU kind (copy within 0.10 %). */
#define KIND_COPY_WINDOW 0.002
/* (Why the noise is taken per run, not per GPU, against a GPU kind or all: GATE_RUN_NOISE, adjust.h.) */
#define KIND_MIN_GPUS 2

/* HOST_ROUND_TRIP: a benchmark whose timed region waits on the host (bench_case.host_round_trip, the run
 * JSON's "host_round_trip": dot/tree_host_finish) is compared with all the baseline's GPUs, never with a
 * GPU kind: how long the round trip takes is set by the host and its process, not by the GPU kind. Two
 * GPUs of the 4229 GPU kind read it at 19.0 us at 2^20 and a third H200 of that kind at 22.4 us, a false
 * alarm against those two (+13.8 %, re-measured +17.8 %, allowed 9.4 %); against all H200s it is
 * allowed 33 % (docs/RESULTS.md, "Host round trips are judged against every host"). A runner
 * blessed in is compared with its own runs only when it has HOST_ROUND_TRIP_MIN_RUNS of them: with
 * fewer its own runs could never fail it, where every host of its testbed may have enough. */

/* HOST_ROUND_TRIP_MIN_RUNS: a benchmark that times a host round trip fails only against this many
 * runs of its testbed or more. Its time differs from one process to the next by up to 7 %, and one
 * process in three runs in a slow state (+18 %, docs/RESULTS.md), which two or three runs rarely
 * show: on a 2-GPU H200 host blessed in from two soak rounds, dot/tree_host_finish 2^20 read +4.1 %
 * in the next, unchanged, round against 3.0 % allowed. Until its testbed has that many runs it is
 * reported ("same", reason host_round_trip_under_6_runs), slower or faster, and does not gate. */
#define HOST_ROUND_TRIP_MIN_RUNS 6

/* TESTBED: the baseline's side is only ever the runs of the run's own testbed (the runner's class of
 * host: GPU model, GPU count and NVLink, CPU model, driver; perf/runner/testbed.h). Hosts of one GPU
 * model differ: on 2- and 4-GPU H100 hosts an empty kernel's launch reads 1.6-1.75 us more than on
 * the one-GPU hosts of the baselines, and unchanged memset + kernel benchmarks failed there at +8 to
 * +10 % (docs/RESULTS.md). A benchmark with no run of the run's testbed is "new" for it, said in the
 * evidence ("no run of this testbed"): another testbed never stands in. A run without a testbed (a
 * file from before the field) is compared with every run, and says so. Within the testbed the rules
 * below (own GPU, GPU kind, all) apply as before. */

/* The median of v[0..n), which it sorts; NAN when n is 0. */
double gate_median(double *v, size_t n);

/* The testbed all of f's runs share; "" when they have none or differ. */
const char *testbed_of(const gate_figures *f);
/* "No run of this testbed", decided here alone (ci/gate.sh through `gate testbeds`, gate check, compare_figures):
 * 1 when base has a run made on `testbed` of benchmark `bench` (NULL: any run of its runs table, whatever it
 * measured); a testbed of "" (a run from before the field) is compared with every run, so it is covered by any. */
int has_testbed_runs(const gate_figures *base, const char *testbed, const char *bench);
/* A shallow view of base whose benchmarks keep only their runs made on `testbed`; a benchmark with
 * none is left out. Free with free_testbed_view. */
void testbed_view(const gate_figures *base, const char *testbed, gate_figures *view);
void free_testbed_view(gate_figures *view);

/* The GPU (context.gpu.uuid) measure m was made on; "" when its run is unknown. */
const char *measure_gpu(const gate_figures *f, const gate_measure *m);
/* 1 when run r of b is the first of b's runs on its GPU. */
int first_on_its_gpu(const gate_figures *f, const gate_bench *b, size_t r);
/* The measures of b made on GPU `uuid` ("" matches none): a shallow view, free its runs only. */
gate_bench gpu_runs(const gate_figures *f, const gate_bench *b, const char *uuid);
/* How many GPUs (context.gpu.uuid) b's runs were made on. */
size_t gpus_of(const gate_figures *f, const gate_bench *b);
/* The copy probe of GPU `uuid`: the median of its runs' in f (0: none). */
double gpu_copy(const gate_figures *f, const char *uuid);
/* The copy probe of each run's GPU, gpu_copy of its uuid, one per run of f, in one sort of the runs
 * (asking gpu_copy run by run scanned every run for each: 27 s at 22 400 runs). Free with free(). */
double *gpu_copies(const gate_figures *f);
/* The measures of b made on GPUs of the kind whose copy probe is `copy` (KIND_COPY_WINDOW): a
 * shallow view, free its runs only. copies: gpu_copies(f), or NULL to have it computed. */
gate_bench kind_runs(const gate_figures *f, const gate_bench *b, double copy, const double *copies);
/* How many GPUs of the kind whose copy probe is `copy` (KIND_COPY_WINDOW) b's runs were made on. */
size_t kind_gpus_of(const gate_figures *f, const gate_bench *b, double copy);

/* What the baseline's side of a comparison was: the run's own GPU's runs, its GPU kind's, all GPUs
 * (fewer than KIND_MIN_GPUS of its kind), all GPUs with none of its kind among them, whose
 * difference of GPU kind reads as a change, or all GPUs for a benchmark that times a host round trip
 * (HOST_ROUND_TRIP). */
typedef enum { REF_OWN_GPU, REF_ITS_KIND, REF_ALL_GPUS, REF_OTHER_KINDS, REF_EVERY_HOST } gate_reference;
/* Which of those the flags below name (own GPU first, then a host round trip, then its GPU kind). */
gate_reference reference_which(int own_gpu, int host_round_trip, int same_kind, size_t kind_gpus);

/* The comparison side of one benchmark: the baseline's runs the run's are compared with. */
typedef struct {
  gate_bench own;        /* the baseline's runs of it on the run's own GPU (a view: free_bench_reference) */
  gate_bench kind;       /* ... on the GPUs of the run's GPU kind (none for a host round trip or its own GPU) */
  const gate_bench *all; /* all the baseline's runs of it (of the run's testbed) */
  int own_gpu;           /* own has OWN_GPU_MIN_RUNS runs or more: the side is own */
  int host_round_trip;   /* it times a host round trip: all GPUs, never a GPU kind (HOST_ROUND_TRIP) */
  int same_kind;         /* else kind has KIND_MIN_GPUS GPUs or more: the side is kind; else all */
  size_t kind_gpus;      /* how many GPUs of the run's kind have runs of it */
  gate_reference which;
  size_t runs, gpus; /* how many runs and GPUs the side has */
} bench_reference;

/* The comparison side for baseline benchmark bb (of base) of a run whose benchmark is rb (NULL: the run has
 * none) and whose copy probe is run_copy (the median of its runs'); copies: gpu_copies(base). */
bench_reference reference_for(const gate_figures *base, const gate_figures *run, const gate_bench *bb,
                              const gate_bench *rb, double run_copy, const double *copies);
/* Its runs: own, GPU kind or all. Valid while r is. */
const gate_bench *reference_runs(const bench_reference *r);
void free_bench_reference(bench_reference *r);

#endif
