/* Short benchmarks measured in several CUDA contexts (--contexts=K).
 *
 * A 7 us kernel's median moves by 100-400 ns from one CUDA context to the
 * next: every context has its own offset, the same for all samples in it
 * (docs/RESULTS.md, "Run-to-run spread at small sizes"). No number of samples
 * in one context averages it out; only more contexts do, and a context made
 * in the same process varies the offset as a new process does. So the runner,
 * after measuring everything in its first context, makes K more contexts one
 * after another and measures the short benchmarks again in each, with
 * min_time/K (at most 200 samples). Each context's repetition is pooled here: its median joins
 * context_ns, its samples the repetition's; the reported time is the mean of
 * the context medians and the noise the standard error of that mean. The
 * self-check is not repeated there: the first context checked the output of
 * the same inputs, and checking a large output costs more than its samples. The
 * first context's own measurement only decided which benchmarks are short: it
 * ran after the copy probe and among the long benchmarks, and so not like the
 * others, and it is replaced.
 *
 * A long benchmark's median moves between contexts too (tf32_wmma 1024^3 on an
 * H100: 0.77 % between processes), less than a short one's but enough to widen
 * the gate's thresholds past 3 %. With --long_contexts=L the long ones are
 * measured in the first L of the K contexts, after the short ones and the launch
 * probe (so those are measured as in every other context), with min_time/L each,
 * and pooled the same way; the first context then measures them only to tell
 * they are long.
 *
 * Pure C: tested on the CPU with made-up results. */
#ifndef PERF_RUNNER_CONTEXTS_H
#define PERF_RUNNER_CONTEXTS_H

#include <stddef.h>

#include "perf/runner/results.h"

/* 1 when r did not fail and every repetition has a median under below_ns. */
int contexts_is_short(const bench_result *r, double below_ns);

/* Pools one context's measurement `from` of a repetition into `into` (the
 * first pooled replaces into's own samples and readings). The samples of
 * `from` are copied. Returns 0, or -1 when `from` has no samples or memory
 * runs out. */
int contexts_pool(rep_result *into, const rep_result *from);

#endif
