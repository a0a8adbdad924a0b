/* An empty kernel, for measuring what a launch costs between two events. */
#ifndef KERNELS_EXPERIMENTS_LAUNCH_PROBE_H
#define KERNELS_EXPERIMENTS_LAUNCH_PROBE_H

#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Enqueues a kernel of `blocks` x 256 threads that does nothing. */
cudaError_t launch_probe_empty(unsigned blocks, cudaStream_t stream);

#ifdef __cplusplus
}
#endif

#endif
