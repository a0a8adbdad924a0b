// An empty kernel: its event interval is the launch and event cost alone.
#include "kernels/experiments/launch_probe.h"

static __global__ void empty_kernel(void) {}

extern "C" cudaError_t launch_probe_empty(unsigned blocks, cudaStream_t stream) {
  empty_kernel<<<blocks, 256, 0, stream>>>();
  return cudaGetLastError();
}
