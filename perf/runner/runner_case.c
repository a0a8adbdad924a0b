/* One benchmark case measured: its set-up, self-check, samples and teardown (run_state.h). */
#define _GNU_SOURCE
#include "perf/runner/run_state.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* ---------- one benchmark case ---------- */

/* One repetition. With `quick` (the first context under --contexts), it is first measured
 * with quick's shorter time: a short benchmark's measurement here only tells that it is
 * short, and the other contexts' replace it (perf/runner/contexts.h); only a long one is then
 * measured again with cfg, unless --long_contexts replaces its measurement too. */
static int measure_rep(runner *R, run_fn fn, void *state, const measure_cfg *cfg, const measure_cfg *quick,
                       rep_result *rep, char *err, size_t errlen) {
  if (quick) {
    if (measure(R, fn, state, quick, rep, err, errlen) != 0) return -1;
    if (rep->n > 0 && (R->opt.long_contexts > 0 || stats_median(rep->gpu_ns, rep->n) < R->opt.contexts_below_s * 1e9))
      return 0;
    free_rep(rep);
  }
  return measure(R, fn, state, cfg, rep, err, errlen);
}

/* Sets up (or, when *shared holds the state of a case with the same inputs, reuses it),
 * self-checks (unless check is 0) and measures one case into r (see measure_rep for quick).
 * The state is left in *shared for the next case of its inputs, or torn down when this case is
 * the last of them (`last`) or failed. */
void run_case(runner *R, size_t idx, const measure_cfg *cfg, const measure_cfg *quick, int check, void **shared,
              int last, bench_result *r) {
  const bench_case *c = bench_get(idx);
  char err[400] = "";
  bench_case_name(c, r->name, sizeof r->name);
  r->family_index = bench_family_index(idx);
  r->instance_index = bench_instance_index(idx);
  r->reference = c->reference;
  r->host_round_trip = c->host_round_trip;
  r->bytes = c->bytes;
  r->flops = c->flops;
  void *state = *shared;
  *shared = NULL;
  double t[5]; /* before set-up, after it, after the first run, after the check; before teardown */
  t[0] = now_s();
  if (state && c->ops->reuse(state, c, err, sizeof err) != 0) {
    r->failed = 1;
    snprintf(r->error, sizeof r->error, "reuse of the set-up of the same inputs: %s", err);
    c->ops->teardown(state);
    R->prep.s[PREP_SETUP] += now_s() - t[0];
    return;
  }
  if (!state && c->ops->setup(c, R->ctx.seed + 0x9E3779B97F4A7C15ull * (idx + 1), &state, err, sizeof err) != 0) {
    r->failed = 1;
    snprintf(r->error, sizeof r->error, "setup: %s", err);
    R->prep.s[PREP_SETUP] += now_s() - t[0];
    return;
  }
  /* setup's copies and memsets ran on the legacy default stream, which the
   * runner's non-blocking stream does not wait for. */
  cudaError_t e = cudaDeviceSynchronize();
  t[1] = now_s();
  if (e == cudaSuccess) e = c->ops->run(state, R->stream);
  if (e == cudaSuccess) e = cudaStreamSynchronize(R->stream);
  t[2] = now_s();
  if (e != cudaSuccess) {
    r->failed = 1;
    snprintf(r->error, sizeof r->error, "self-check run: %s (%s)", cudaGetErrorName(e), cudaGetErrorString(e));
  } else if (check && c->ops->verify(state, err, sizeof err) != 0) {
    r->failed = 1;
    /* The seed of the run's inputs: BENCH_SEED set to it makes them again (each case's own seed derives
     * from it and the case's index), so the failure can be reproduced from this message alone. */
    snprintf(r->error, sizeof r->error, "self-check failed, not timed: %s (rerun with BENCH_SEED=%llu)", err,
             (unsigned long long)R->ctx.seed);
  }
  t[3] = now_s();
  if (!r->failed) {
    r->reps = calloc((size_t)R->opt.repetitions, sizeof *r->reps);
    if (!r->reps) {
      r->failed = 1;
      snprintf(r->error, sizeof r->error, "out of host memory");
    }
    for (int i = 0; !r->failed && i < R->opt.repetitions; i++) {
      if (measure_rep(R, c->ops->run, state, cfg, quick, &r->reps[i], err, sizeof err) != 0) {
        r->failed = 1;
        snprintf(r->error, sizeof r->error, "repetition %d: %s", i, err);
      }
      r->nreps = i + 1;
    }
  }
  t[4] = now_s();
  if (last || r->failed)
    c->ops->teardown(state);
  else
    *shared = state;
  double teardown = now_s() - t[4];
  R->prep.s[PREP_SETUP] += t[1] - t[0];
  R->prep.s[PREP_FIRST_RUN] += t[2] - t[1];
  R->prep.s[PREP_CHECK] += t[3] - t[2];
  R->prep.s[PREP_TEARDOWN] += teardown;
  double mine = t[3] - t[0] + teardown;
  if (mine > R->prep.slowest_s) {
    R->prep.slowest_s = mine;
    snprintf(R->prep.slowest, sizeof R->prep.slowest, "%s", r->name);
  }
  if (r->failed) {
    for (int i = 0; i < r->nreps; i++) free_rep(&r->reps[i]);
    free(r->reps);
    r->reps = NULL;
    r->nreps = 0;
  }
}
