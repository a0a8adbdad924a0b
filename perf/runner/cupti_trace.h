/* What a benchmark's timed region runs on the GPU, recorded with CUPTI (--fingerprint_out).
 *
 * CUPTI is loaded with dlopen, never linked, so a benchmark binary still lists its cases on a
 * machine without it. Tried in order: $CUPTI_LIBRARY if set; libcupti.so.13; libcupti.so; then
 * under ${CUDA_PATH:-/usr/local/cuda} and /usr/local/cuda: lib64/libcupti.so,
 * targets/x86_64-linux/lib/libcupti.so, extras/CUPTI/lib64/libcupti.so. The first that loads, has
 * every function used and the API version of the headers built against (its activity records'
 * layout) is used. */
#ifndef PERF_RUNNER_CUPTI_TRACE_H
#define PERF_RUNNER_CUPTI_TRACE_H

#include <stddef.h>

#include "perf/runner/fingerprint.h"

enum { CUPTI_TRACE_MAX_CANDIDATES = 9, CUPTI_TRACE_PATH_LEN = 1024 };

/* The library paths tried, in order, for these environment values (NULL: unset). */
size_t cupti_trace_candidates(const char *cupti_library, const char *cuda_path,
                              char out[CUPTI_TRACE_MAX_CANDIDATES][CUPTI_TRACE_PATH_LEN]);

/* Loads CUPTI from the first usable of paths[0..n) and subscribes to module loads: every module's
 * cubin is hashed (perf/runner/cubin_hash.h) as it loads. Must come before the process's first
 * CUDA call, or the modules loaded before it are missed. Returns 0, or -1 with a reason naming
 * each path tried, or the CUPTI call that failed and CUPTI's error string. */
int cupti_trace_open_from(const char *const *paths, size_t n, char *err, size_t errlen);
/* The same with cupti_trace_candidates of the environment. */
int cupti_trace_open(char *err, size_t errlen);

/* Starts recording kernels, memcpys and memsets. */
int cupti_trace_begin(char *err, size_t errlen);
/* After the recorded work was synchronised: flushes CUPTI's buffers, stops recording, and replaces
 * ops with what ran since cupti_trace_begin, in start order, each kernel with its machine code's
 * hash when known. Returns 0, or -1 with a reason (a CUPTI error, dropped records, out of memory)
 * and ops empty. */
int cupti_trace_end(fp_ops *ops, char *err, size_t errlen);

void cupti_trace_close(void);

#endif
