#include "perf/runner/measure_cfg.h"

#include <math.h>

#include "perf/runner/results.h"

measure_cfg measure_cfg_context(const measure_cfg *cfg, int contexts) {
  measure_cfg each = *cfg;
  each.min_time_s /= contexts;
  each.timeout_s /= contexts;
  each.max_noise = INFINITY;
  each.max_samples = CONTEXTS_MAX_SAMPLES;
  return each;
}

measure_cfg measure_cfg_quick(const measure_cfg *cfg, int contexts) {
  measure_cfg quick = measure_cfg_context(cfg, contexts);
  quick.warmup_s = 0;
  return quick;
}

measure_cfg measure_cfg_copy_probe(const measure_cfg *cfg) {
  measure_cfg probe = *cfg;
  if (probe.min_samples < 20) probe.min_samples = 20;
  probe.warmup_s = 0;
  return probe;
}

measure_cfg measure_cfg_launch_probe(void) {
  measure_cfg probe = {10, 0, INFINITY, 1.0, 0, CONTEXTS_MAX_SAMPLES};
  return probe;
}
