// GPU work queued ahead of a sample's start event, never timed: the L2 flush
// and, with --hot, a spin that stands in for it.
#include "perf/runner/untimed.h"

static __global__ void spin_kernel(unsigned long long ns) {
  unsigned long long t0, t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
  do {
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  } while (t - t0 < ns);
}

extern "C" cudaError_t bench_gpu_spin(unsigned long long ns, cudaStream_t stream) {
  spin_kernel<<<1, 1, 0, stream>>>(ns);
  return cudaGetLastError();
}

static __global__ void empty_kernel(void) {}

extern "C" cudaError_t bench_empty_kernel(cudaStream_t stream) {
  empty_kernel<<<1, 32, 0, stream>>>();
  return cudaGetLastError();
}

// Reads every 16 bytes of the buffer. The buffer holds zeros (set once by the
// caller), so the store below never happens; the compiler cannot know that,
// so the loads stay. Nothing is written: the L2 ends up holding clean lines.
static __global__ void read_flush_kernel(const uint4 *buf, size_t n, uint4 *never) {
  unsigned acc = 0;
  for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
    uint4 v = buf[i];
    acc |= v.x | v.y | v.z | v.w;
  }
  if (acc != 0) never[0] = make_uint4(acc, acc, acc, acc);
}

extern "C" cudaError_t bench_l2_flush_read(const void *zeroed, size_t bytes, int sm_count, cudaStream_t stream) {
  size_t n = bytes / sizeof(uint4);
  unsigned blocks = (unsigned)(sm_count > 0 ? 4 * sm_count : 512); // enough loads in flight for full bandwidth
  read_flush_kernel<<<blocks, 256, 0, stream>>>((const uint4 *)zeroed, n, (uint4 *)zeroed);
  return cudaGetLastError();
}
