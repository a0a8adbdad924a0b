/* The runner's state and what its pieces share (runner.c: flags, selection, contexts and bench_main;
 * runner_measure.c: the timing loop; runner_device.c: device facts and the copy and launch probes; runner_case.c:
 * one benchmark case). Not for other code: bench.h is the API. */
#ifndef PERF_RUNNER_RUN_STATE_H
#define PERF_RUNNER_RUN_STATE_H

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cuda_runtime_api.h>

#include "perf/runner/bench.h"
#include "perf/runner/filter.h"
#include "perf/runner/flags.h"
#include "perf/runner/nvml.h"
#include "perf/runner/contexts.h"
#include "perf/runner/cupti_trace.h"
#include "perf/runner/driver_contexts.h"
#include "perf/runner/fingerprint.h"
#include "perf/runner/measure_cfg.h"
#include "perf/runner/report.h"
#include "perf/runner/reporter.h"
#include "perf/runner/sampler.h"
#include "perf/runner/untimed.h"
#include "perf/runner/stats.h"

/* Bytes one probe copy moves (read + written): well past any L2, so it
 * measures DRAM bandwidth. */
#define PROBE_BYTES (1ull << 30)

/* With --hot there is no flush to queue ahead of the start event; a spin of
 * this long covers the host's enqueueing of the event and the launch. */
#define HOT_SPIN_NS 20000ull

/* Where the wall time outside sampling goes: each step summed over cases, and the case that took
 * longest in all of them. The perf phase's budget is spent here as much as in sampling. */
enum { PREP_SETUP, PREP_FIRST_RUN, PREP_CHECK, PREP_TEARDOWN, PREP_CONTEXT, PREP_STEPS };

typedef struct {
  double s[PREP_STEPS];
  double slowest_s;
  char slowest[256];
} prep_account;

typedef struct {
  bench_options opt;
  run_context ctx;
  /* What the timing loop needs in the current CUDA context (see open_sampling). */
  cudaStream_t stream;
  cudaEvent_t start, stop;
  void *flush;
  size_t flush_bytes;
  gpu_nvml *nvml;
  int nvml_ok;            /* readings work: clocks are recorded */
  double nvml_interval_s; /* least time between two readings */
  prep_account prep;      /* wall time outside sampling, by step (printed per context group) */
  double device_s;        /* wall time of setup_device: the runtime's start, NVML, the first context */
} runner;

typedef cudaError_t (*run_fn)(void *state, cudaStream_t stream);

#define TRY(call, what)                                                         \
  do {                                                                          \
    cudaError_t try_err_ = (call);                                              \
    if (try_err_ != cudaSuccess) return cuda_fail(what, try_err_, err, errlen); \
  } while (0)

double now_s(void);
int cuda_fail(const char *call, cudaError_t e, char *err, size_t errlen);
int queue_flush(runner *R, unsigned long count, char *err, size_t errlen);
int measure(runner *R, run_fn fn, void *state, const measure_cfg *cfg, rep_result *rep, char *err, size_t errlen);
void free_rep(rep_result *rep);
int gather_gpu(runner *R, int dev, char *err, size_t errlen);
void gather_host(run_context *c, const char *argv0);
void copy_probe(runner *R, const measure_cfg *cfg);
void launch_probe(runner *R);
void run_case(runner *R, size_t idx, const measure_cfg *cfg, const measure_cfg *quick, int check, void **shared,
              int last, bench_result *r);

#endif
