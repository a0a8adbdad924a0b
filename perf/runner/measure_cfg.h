/* How each measurement is taken: the stopping rule and warm-up of a benchmark's measurement
 * (from the flags), and what of it a CUDA context under --contexts, the first context's quick
 * measure and the probes take. Pure C: tested on the CPU (measure_cfg_test.c). */
#ifndef PERF_RUNNER_MEASURE_CFG_H
#define PERF_RUNNER_MEASURE_CFG_H

typedef struct {
  long min_samples;
  double min_time_s, max_noise, timeout_s, warmup_s;
  long max_samples; /* 0: no cap */
} measure_cfg;

/* One of K contexts: a K-th of the time, as K processes would, at most CONTEXTS_MAX_SAMPLES
 * (results.h), no noise target (chasing --max_noise within a context only added samples, up to
 * the timeout); the warm-up is kept, since this measurement is kept. */
measure_cfg measure_cfg_context(const measure_cfg *cfg, int contexts);

/* The first context's measure under --contexts=K: as a context's, without the warm-up. It only
 * tells a short benchmark from a long one and is replaced, so a warm-up there is time lost, and
 * without one a benchmark is told short or long as it was before --benchmark_min_warmup_time. */
measure_cfg measure_cfg_quick(const measure_cfg *cfg, int contexts);

/* The copy probe (which tells kinds of GPU apart): at least 20 samples, and no warm-up, so that it
 * is taken alike in every run whatever the benchmarks' warm-up. */
measure_cfg measure_cfg_copy_probe(const measure_cfg *cfg);

/* The launch probe (an empty kernel, in every context): whatever the flags, 10 samples or more
 * within 1 s, at most CONTEXTS_MAX_SAMPLES, no noise target and no warm-up. */
measure_cfg measure_cfg_launch_probe(void);

#endif
