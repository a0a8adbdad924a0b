#include "perf/runner/sampler.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void sampler_init(sampler *s, const sampler_cfg *cfg, rep_result *rep, double now) {
  memset(s, 0, sizeof *s);
  memset(rep, 0, sizeof *rep);
  s->cfg = *cfg;
  s->rep = rep;
  s->t0 = s->last_read = now;
}

static int push(sampler *s, double gpu_ns, double host_ns) {
  rep_result *rep = s->rep;
  if (rep->n == s->cap) {
    size_t c = s->cap ? 2 * s->cap : 1024;
    double *g = realloc(rep->gpu_ns, c * sizeof *g);
    if (!g) return -1;
    rep->gpu_ns = g;
    double *h = realloc(rep->host_ns, c * sizeof *h);
    if (!h) return -1;
    rep->host_ns = h;
    s->cap = c;
  }
  rep->gpu_ns[rep->n] = gpu_ns;
  rep->host_ns[rep->n] = host_ns;
  rep->n++;
  return 0;
}

void sampler_widen_clocks(rep_result *rep, unsigned sm_lo, unsigned sm_hi, unsigned mem_lo, unsigned mem_hi,
                          unsigned temp_max) {
  int first = !rep->clocks_valid;
  if (first || sm_lo < rep->sm_mhz_min) rep->sm_mhz_min = sm_lo;
  if (first || sm_hi > rep->sm_mhz_max) rep->sm_mhz_max = sm_hi;
  if (first || mem_lo < rep->mem_mhz_min) rep->mem_mhz_min = mem_lo;
  if (first || mem_hi > rep->mem_mhz_max) rep->mem_mhz_max = mem_hi;
  if (temp_max > rep->temp_c_max) rep->temp_c_max = temp_max;
  rep->clocks_valid = 1;
}

static void note_reading(rep_result *rep, const nvml_reading *rd) {
  sampler_widen_clocks(rep, rd->sm_mhz, rd->sm_mhz, rd->mem_mhz, rd->mem_mhz, rd->temp_c);
  rep->throttle |= rd->reasons;
}

void sampler_reading(sampler *s, const nvml_reading *rd, double now) {
  rep_result *rep = s->rep;
  s->last_read = now;
  if (rd) s->last_sm_mhz = rd->sm_mhz;
  if (rd && s->cfg.clock_floor_mhz > 0 && rd->sm_mhz < s->cfg.clock_floor_mhz) {
    rep->n -= s->pending;
    rep->discarded += s->pending;
  } else {
    for (size_t i = rep->n - s->pending; i < rep->n; i++) stats_running_push(&s->kept, rep->gpu_ns[i]);
    if (rd) note_reading(rep, rd);
  }
  s->pending = 0;
  rep->noise = stats_running_rel_stderr(&s->kept);
}

int sampler_add(sampler *s, double gpu_ns, double host_ns, double now) {
  if (push(s, gpu_ns, host_ns)) return -1;
  s->pending++;
  if (!s->cfg.readings) {
    sampler_reading(s, NULL, now);
    return 0;
  }
  return now - s->last_read >= s->cfg.nvml_interval_s || now - s->t0 >= s->cfg.timeout_s;
}

int sampler_done(sampler *s, double now) {
  if (s->pending) return 0;
  const sampler_cfg *c = &s->cfg;
  if ((long)s->kept.n >= c->min_samples && s->kept.sum * 1e-9 >= c->min_time_s && s->rep->noise <= c->max_noise)
    return 1;
  if (c->max_samples > 0 && (long)s->kept.n >= c->max_samples && (long)s->kept.n >= c->min_samples) return 1;
  if (now - s->t0 >= c->timeout_s) {
    s->rep->timed_out = 1;
    return 1;
  }
  return 0;
}

int sampler_finish(sampler *s, double min_clock_ratio, double sm_clock_max_mhz, char *err, size_t errlen) {
  rep_result *rep = s->rep;
  if (rep->n == 0) {
    snprintf(err, errlen,
             "all %zu samples discarded within --timeout=%gs: SM clock %u MHz (last reading) below %.2f x %.0f MHz; "
             "is the GPU clock-locked low? --min_clock_ratio=0 keeps such samples",
             rep->discarded, s->cfg.timeout_s, s->last_sm_mhz, min_clock_ratio, sm_clock_max_mhz);
    return -1;
  }
  if (!isfinite(rep->noise)) rep->noise = 0; /* one sample: no estimate; JSON cannot hold infinity */
  return 0;
}
