#include "perf/runner/contexts.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "perf/runner/sampler.h"
#include "perf/runner/stats.h"

int contexts_is_short(const bench_result *r, double below_ns) {
  if (r->failed || r->nreps < 1) return 0;
  for (int i = 0; i < r->nreps; i++) {
    const rep_result *rep = &r->reps[i];
    if (rep->n == 0 || !(stats_median(rep->gpu_ns, rep->n) < below_ns)) return 0;
  }
  return 1;
}

/* Appends n values to *x, which holds `have`. */
static int append(double **x, size_t have, const double *add, size_t n) {
  double *g = realloc(*x, (have + n ? have + n : 1) * sizeof *g);
  if (!g) return -1;
  *x = g;
  memcpy(g + have, add, n * sizeof *g);
  return 0;
}

/* The noise of a pooled repetition: between contexts, not between samples. */
static void context_noise(rep_result *rep) {
  stats_summary s;
  if (rep->ncontext < 2 || stats_summarize(rep->context_ns, rep->ncontext, &s) != 0 || s.mean <= 0) return;
  rep->noise = s.stddev / sqrt((double)rep->ncontext) / s.mean;
}

int contexts_pool(rep_result *into, const rep_result *from) {
  if (from->n == 0) return -1;
  double median = stats_median(from->gpu_ns, from->n);
  if (into->ncontext == 0) {
    /* The first context pooled replaces the first context's own measurement (see contexts.h). */
    into->n = 0;
    into->discarded = 0;
    into->timed_out = 0;
    into->throttle = 0;
    into->clocks_valid = 0;
    into->temp_c_max = 0;
    into->noise = 0;
  }
  double *grown = realloc(into->context_ns, (into->ncontext + 1) * sizeof *grown);
  if (!grown) return -1;
  into->context_ns = grown;
  if (append(&into->gpu_ns, into->n, from->gpu_ns, from->n) != 0 ||
      append(&into->host_ns, into->n, from->host_ns, from->n) != 0)
    return -1;
  into->context_ns[into->ncontext++] = median;
  into->n += from->n;
  into->discarded += from->discarded;
  into->timed_out |= from->timed_out;
  into->throttle |= from->throttle;
  if (from->clocks_valid) /* the widest range seen over the pooled contexts */
    sampler_widen_clocks(into, from->sm_mhz_min, from->sm_mhz_max, from->mem_mhz_min, from->mem_mhz_max,
                         from->temp_c_max);
  context_noise(into);
  return 0;
}
