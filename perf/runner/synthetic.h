/* Synthetic benchmark results for the writer and schema tests: made up on
 * the CPU, named so (the GPU is "Synthetic GPU (test data)"), never written
 * under perf/runner/testdata/. */
#ifndef PERF_RUNNER_SYNTHETIC_H
#define PERF_RUNNER_SYNTHETIC_H

#include "perf/runner/results.h"

enum { SYN_RESULTS = 4 };

/* ctx: a complete context. res[0]: add_float4, 3 repetitions of 5 samples
 * (rep r: 1000, 1010, 990, 1005, 995 ns, each + 10 r); res[1]: reference
 * memcpy, 1 repetition, no NVML readings, timed out; res[2]: failed
 * self-check; res[3]: saxpy with flops, 2 repetitions, discarded samples and
 * throttle reasons. Static storage: call once per process, or again to reset. */
void synthetic_results(run_context *ctx, bench_result res[SYN_RESULTS]);

#endif
