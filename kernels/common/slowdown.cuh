// Injected slowdowns, for proving the regression gate (README, "The regression gate"). Three
// slowdown kinds, each set in percent by a build setting of //kernels/common and 0 in a normal build,
// where this header adds no code at all (//tests:slowdown_off_test checks the 0):
//   slowdown_work_pct    the kernel handles PCT% more items: the first ones again, with the same
//                        result (more bytes moved, in the same launch)
//   slowdown_grid_pct    the launch has PCT% fewer blocks (grid-stride loops stay correct)
//   slowdown_launch_pct  one more launch before the kernel, reading PCT% of its input
// The injection points are elementwise add_float4 and reduce v7 (see their launchers).
#ifndef KERNELS_COMMON_SLOWDOWN_CUH
#define KERNELS_COMMON_SLOWDOWN_CUH

#include <stddef.h>
#include <cuda_runtime.h>

#include "kernels/common/launch.cuh"
#include "kernels/common/slowdown.h"

#ifndef SLOWDOWN_WORK_PCT
#define SLOWDOWN_WORK_PCT 0
#endif
#ifndef SLOWDOWN_GRID_PCT
#define SLOWDOWN_GRID_PCT 0
#endif
#ifndef SLOWDOWN_LAUNCH_PCT
#define SLOWDOWN_LAUNCH_PCT 0
#endif

// The items a kernel handles when slowed by the work slowdown kind (`items` normally).
static __host__ __device__ inline size_t slowdown_work(size_t items) { return items + items * SLOWDOWN_WORK_PCT / 100; }

// The grid of a launch slowed by the grid slowdown kind (`grid` normally; at least one block).
static inline unsigned slowdown_grid(unsigned grid) {
  unsigned cut = (unsigned)((unsigned long long)grid * SLOWDOWN_GRID_PCT / 100);
  return grid > cut ? grid - cut : 1;
}

#if SLOWDOWN_LAUNCH_PCT > 0
static __device__ float slowdown_sink;

// Reads `nvec` float4s; stores only if their sum is exactly -1 (then into a variable of its own).
static __global__ void slowdown_read_kernel(const float4 *p, size_t nvec) {
  float acc = 0.0f;
  for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < nvec; i += (size_t)gridDim.x * blockDim.x) {
    float4 v = __ldg(p + i);
    acc += (v.x + v.y) + (v.z + v.w);
  }
  if (acc == -1.0f) slowdown_sink = acc;
}
#endif

// The launch slowdown kind: reads PCT% of the `nvec` float4s at `p` (16-byte aligned) in a launch of its
// own, on the kernel's stream, before it. Does nothing normally.
static inline cudaError_t slowdown_extra_launch(const void *p, size_t nvec, cudaStream_t stream) {
#if SLOWDOWN_LAUNCH_PCT > 0
  size_t read = nvec * SLOWDOWN_LAUNCH_PCT / 100;
  unsigned grid;
  cudaError_t err = grid_for(read > 0 ? read : 1, 256, &grid);
  if (err != cudaSuccess) return err;
  slowdown_read_kernel<<<grid, 256, 0, stream>>>((const float4 *)p, read);
  return cudaGetLastError();
#else
  (void)p;
  (void)nvec;
  (void)stream;
  return cudaSuccess;
#endif
}

// Defines NAME(), the C function a family exports to say which slowdowns it was built with.
#define SLOWDOWN_REPORT(NAME)                                                        \
  extern "C" kernel_slowdown NAME(void) {                                            \
    kernel_slowdown s = {SLOWDOWN_WORK_PCT, SLOWDOWN_GRID_PCT, SLOWDOWN_LAUNCH_PCT}; \
    return s;                                                                        \
  }

// Each kind in 0..100 only: past 100 the work kind's repeated items and the launch kind's reads run past the
// end of the input (add_float4 would write out of bounds, v7 read), and a negative percentage means nothing.
// Checked here at the end, so that the code above keeps its line numbers (-lineinfo) in a normal build.
#if SLOWDOWN_WORK_PCT < 0 || SLOWDOWN_WORK_PCT > 100
#error "--//kernels/common:slowdown_work_pct must be in 0..100"
#endif
#if SLOWDOWN_GRID_PCT < 0 || SLOWDOWN_GRID_PCT > 100
#error "--//kernels/common:slowdown_grid_pct must be in 0..100"
#endif
#if SLOWDOWN_LAUNCH_PCT < 0 || SLOWDOWN_LAUNCH_PCT > 100
#error "--//kernels/common:slowdown_launch_pct must be in 0..100"
#endif

#endif
