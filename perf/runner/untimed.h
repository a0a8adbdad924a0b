/* Untimed GPU work queued ahead of a sample's start event. */
#ifndef PERF_RUNNER_UNTIMED_H
#define PERF_RUNNER_UNTIMED_H

#include <stddef.h>

#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Enqueues a one-thread kernel that spins for `ns` nanoseconds of GPU time. */
cudaError_t bench_gpu_spin(unsigned long long ns, cudaStream_t stream);

/* Enqueues an empty one-warp kernel: timed like a benchmark, it is the launch's own share of a
 * sample (the runner's launch probe). */
cudaError_t bench_empty_kernel(cudaStream_t stream);

/* Enqueues a kernel that reads all `bytes` of `zeroed` (a buffer the caller
 * filled with zeros once; bytes a multiple of 16) and writes nothing, so the
 * L2 is left full of clean lines of that buffer: the next kernel's misses
 * evict them without write-backs. `sm_count` sizes the grid. */
cudaError_t bench_l2_flush_read(const void *zeroed, size_t bytes, int sm_count, cudaStream_t stream);

#ifdef __cplusplus
}
#endif

#endif
