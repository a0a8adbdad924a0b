// Kernels for cubin_hash_test, compiled with nvcc -cubin at build time once per variant: each variant
// changes one thing through one of these macros (perf/runner/BUILD, CUBIN_VARIANTS), so that the test
// can check that exactly the kernels it touches get another hash.
#ifndef G_SCALE_INIT
#define G_SCALE_INIT 2.0f // global_init_changed: 3.0f (every kernel of the module: its constant bank)
#endif
#ifndef HELPER_ADD
#define HELPER_ADD 1.0f // helper_changed: 2.0f (k_b, which calls it)
#endif
#ifndef K_A_TILE
#define K_A_TILE 64 // k_a_more_smem: 128 (k_a's static shared memory)
#endif
#ifndef K_B_FACTOR
#define K_B_FACTOR 2.0f // k_b_changed: 5.0f (k_b's own code)
#endif

__device__ float g_scale = G_SCALE_INIT; // read through a relocated constant bank (-rdc: a text relocation)

__device__ __noinline__ float helper(float x) { return x * 3.0f + HELPER_ADD; }

extern "C" __global__ void k_a(float *x, int n) {
  __shared__ float tile[K_A_TILE];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  tile[threadIdx.x % 64] = i < n ? x[i] : 0.0f;
  __syncthreads();
  if (i < n) x[i] = tile[(threadIdx.x + 1) % 64] + 1.0f;
}

extern "C" __global__ void k_b(float *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = helper(x[i]) * K_B_FACTOR;
}

extern "C" __global__ void k_g(float *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] *= g_scale;
}

#ifdef K_C_ADDED // k_c_added: one more kernel, which must change no other kernel's hash
extern "C" __global__ void k_c(int *y) { y[threadIdx.x] += 7; }
#endif
