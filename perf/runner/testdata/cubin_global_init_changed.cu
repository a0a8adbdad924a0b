// Kernels for cubin_hash_test (compiled with nvcc -cubin at build time). The other cubin_*.cu files
// are copies of this one with one change each; keep them identical otherwise.
__device__ float g_scale = 3.0f;  // read through a relocated constant bank (-rdc: a text relocation)

__device__ __noinline__ float helper(float x) { return x * 3.0f + 1.0f; }

extern "C" __global__ void k_a(float *x, int n) {
  __shared__ float tile[64];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  tile[threadIdx.x % 64] = i < n ? x[i] : 0.0f;
  __syncthreads();
  if (i < n) x[i] = tile[(threadIdx.x + 1) % 64] + 1.0f;
}

extern "C" __global__ void k_b(float *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = helper(x[i]) * 2.0f;
}

extern "C" __global__ void k_g(float *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] *= g_scale;
}
