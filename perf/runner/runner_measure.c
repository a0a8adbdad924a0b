/* The timing loop: warm-up, then samples until the sampler stops it (run_state.h). */
#define _GNU_SOURCE
#include "perf/runner/run_state.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int cuda_fail(const char *call, cudaError_t e, char *err, size_t errlen) {
  snprintf(err, errlen, "%s: %s (%s)", call, cudaGetErrorName(e), cudaGetErrorString(e));
  return -1;
}

/* What precedes each sample's start event (see measure), also before the --fingerprint_out run. */
int queue_flush(runner *R, unsigned long count, char *err, size_t errlen) {
  if (R->flush && !R->opt.l2_flush_write) {
    /* Reading leaves clean lines: the timed kernel's misses evict them with
     * no write-back, so it is not charged for the flush's own traffic. */
    TRY(bench_l2_flush_read(R->flush, R->flush_bytes, R->ctx.gpu.sm_count, R->stream), "L2 flush (read kernel)");
  } else if (R->flush) {
    /* --l2_flush=write: a different byte each time, so no sample finds the
     * flush buffer's contents already there. Up to an L2 of dirty lines is
     * left for the timed kernel to write back. */
    TRY(cudaMemsetAsync(R->flush, (int)(count & 0xFF), R->flush_bytes, R->stream), "L2 flush (cudaMemsetAsync)");
  } else {
    TRY(bench_gpu_spin(HOT_SPIN_NS, R->stream), "spin kernel");
  }
  return 0;
}

/* Warm-up, then samples until the stopping rule or the timeout (the policy
 * is perf/runner/sampler's; this loop does the CUDA and NVML calls). */
int measure(runner *R, run_fn fn, void *state, const measure_cfg *cfg, rep_result *rep, char *err, size_t errlen) {
  memset(rep, 0, sizeof *rep);
  double t0 = now_s();
  do {
    TRY(fn(state, R->stream), "warm-up run");
    TRY(cudaStreamSynchronize(R->stream), "warm-up run (execution)");
  } while (now_s() - t0 < cfg->warmup_s);

  const run_context *ctx = &R->ctx;
  sampler_cfg scfg = {
      .min_samples = cfg->min_samples,
      .min_time_s = cfg->min_time_s,
      .max_noise = cfg->max_noise,
      .timeout_s = cfg->timeout_s,
      .max_samples = cfg->max_samples,
      .clock_floor_mhz = ctx->clock_filter ? ctx->min_clock_ratio * ctx->gpu.sm_clock_max_mhz : 0,
      .readings = R->nvml_ok,
      .nvml_interval_s = R->nvml_interval_s,
  };
  sampler sm;
  sampler_init(&sm, &scfg, rep, now_s());
  for (unsigned long count = 0;; count++) {
    /* Queue GPU work ahead of the start event, with no host synchronisation:
     * the event is then timestamped when the GPU finishes that work, with the
     * kernel launch already queued behind it. On an idle stream the event would
     * fire at once and the sample would include the host's launch latency. */
    if (queue_flush(R, count, err, errlen) != 0) return -1;
    TRY(cudaEventRecord(R->start, R->stream), "cudaEventRecord");
    double h0 = now_s();
    TRY(fn(state, R->stream), "run");
    double h1 = now_s();
    TRY(cudaEventRecord(R->stop, R->stream), "cudaEventRecord");
    TRY(cudaEventSynchronize(R->stop), "run (execution)");
    float ms = 0;
    TRY(cudaEventElapsedTime(&ms, R->start, R->stop), "cudaEventElapsedTime");
    /* Whole nanoseconds: events resolve about half a microsecond, so nothing
     * is lost, and the JSON's sample lists stay short. */
    double now = now_s();
    int due = sampler_add(&sm, nearbyint((double)ms * 1e6), nearbyint((h1 - h0) * 1e9), now);
    if (due < 0) {
      snprintf(err, errlen, "out of host memory for samples");
      return -1;
    }
    if (due) {
      nvml_reading rd;
      int ok = nvml_read(R->nvml, &rd) == 0;
      sampler_reading(&sm, ok ? &rd : NULL, now_s());
    }
    if (sampler_done(&sm, now_s())) break;
  }
  return sampler_finish(&sm, ctx->min_clock_ratio, ctx->gpu.sm_clock_max_mhz, err, errlen);
}

void free_rep(rep_result *rep) {
  free(rep->gpu_ns);
  free(rep->host_ns);
  free(rep->context_ns);
  rep->gpu_ns = rep->host_ns = rep->context_ns = NULL;
  rep->n = rep->ncontext = 0;
}
