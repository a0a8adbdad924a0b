/* The sampling policy of the timing loop, without CUDA (pure C, so it is
 * tested on the CPU with made-up samples, readings and clocks):
 *
 *   - every sample is kept unless an NVML reading taken right after it says
 *     the SM clock was below clock_floor_mhz; then it is discarded and counted;
 *   - NVML is read once nvml_interval_s has passed since the last reading;
 *     samples in between share the verdict of the reading that follows them
 *     (clocks change over milliseconds, a reading speaks for the samples just
 *     before it);
 *   - sampling stops when the kept samples number >= min_samples, add up to
 *     >= min_time_s of GPU time and their relative standard error of the mean
 *     is <= max_noise; or when timeout_s has passed (timed_out is set).
 */
#ifndef PERF_RUNNER_SAMPLER_H
#define PERF_RUNNER_SAMPLER_H

#include <stddef.h>

#include "perf/runner/nvml.h"
#include "perf/runner/results.h"
#include "perf/runner/stats.h"

typedef struct {
  long min_samples;
  double min_time_s;
  double max_noise; /* fraction, e.g. 0.003 */
  double timeout_s;
  long max_samples;       /* 0: no cap; else done once this many are kept (min_samples still first) */
  double clock_floor_mhz; /* 0: never discard */
  int readings;           /* NVML can be read at all */
  double nvml_interval_s; /* least time between two readings */
} sampler_cfg;

typedef struct {
  sampler_cfg cfg;
  rep_result *rep;
  size_t cap;
  size_t pending; /* the last `pending` samples of rep await a verdict */
  stats_running kept;
  double t0, last_read;
  unsigned last_sm_mhz;
} sampler;

/* Starts a repetition at time `now` (seconds, any monotonic origin); rep is
 * reset and fills with the kept samples. */
void sampler_init(sampler *s, const sampler_cfg *cfg, rep_result *rep, double now);

/* Adds a sample that completed at `now`. Returns 1 if a reading is due (call
 * sampler_reading next), 0 if not, -1 when out of memory. */
int sampler_add(sampler *s, double gpu_ns, double host_ns, double now);

/* The verdict on the pending samples: rd is the reading taken at `now`, or
 * NULL if it failed (the samples are then kept). */
void sampler_reading(sampler *s, const nvml_reading *rd, double now);

/* Widens rep's clock and temperature ranges by readings spanning [sm_lo, sm_hi] and
 * [mem_lo, mem_hi] MHz, up to temp_max C (one NVML reading, or a whole repetition being pooled
 * into another, perf/runner/contexts.h), and marks its clocks valid. */
void sampler_widen_clocks(rep_result *rep, unsigned sm_lo, unsigned sm_hi, unsigned mem_lo, unsigned mem_hi,
                          unsigned temp_max);

/* 1 when the repetition is over: the stopping rule holds, or the timeout
 * passed (then rep->timed_out is set). Never while a verdict is pending. */
int sampler_done(sampler *s, double now);

/* Closes the repetition. Returns 0, or -1 with a message when no sample was
 * kept (all discarded for low clocks). */
int sampler_finish(sampler *s, double min_clock_ratio, double sm_clock_max_mhz, char *err, size_t errlen);

#endif
