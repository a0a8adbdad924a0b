/* A one-thread kernel that keeps the stream busy for a while. */
#ifndef PERF_SPIN_H
#define PERF_SPIN_H

#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Enqueues a kernel that spins for `ns` nanoseconds of GPU time. */
cudaError_t bench_gpu_spin(unsigned long long ns, cudaStream_t stream);

#ifdef __cplusplus
}
#endif

#endif
