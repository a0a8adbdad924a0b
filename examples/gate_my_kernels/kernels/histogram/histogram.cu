// 256-bin histograms of bytes: global atomics; block-private bins in shared memory; the same with
// 16-byte loads.
#include "kernels/histogram/histogram.h"
#include "kernels/common/launch.cuh" // from the suite: grid_for, grid_fill_device, is_aligned

static const unsigned kBlock = 256; // one thread per bin to clear and merge a block's bins

static __global__ void histogram_global_kernel(const uint8_t *x, int32_t *counts, size_t n) {
  size_t stride = (size_t)gridDim.x * blockDim.x;
  for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) atomicAdd(&counts[x[i]], 1);
}

static __device__ void clear_bins(int32_t *bins) {
  for (unsigned b = threadIdx.x; b < HISTOGRAM_BINS; b += blockDim.x) bins[b] = 0;
  __syncthreads();
}

// Bytes [begin, end) of x into bins, over the grid's threads.
static __device__ void count_bytes(const uint8_t *x, size_t begin, size_t end, int32_t *bins) {
  size_t stride = (size_t)gridDim.x * blockDim.x;
  for (size_t i = begin + (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < end; i += stride)
    atomicAdd(&bins[x[i]], 1);
}

static __device__ void count_word(unsigned w, int32_t *bins) {
  for (int k = 0; k < 4; k++) atomicAdd(&bins[(w >> (8 * k)) & 0xFF], 1);
}

// A block's bins into counts: one global atomic per non-empty bin and block.
static __device__ void merge_bins(const int32_t *bins, int32_t *counts) {
  __syncthreads();
  for (unsigned b = threadIdx.x; b < HISTOGRAM_BINS; b += blockDim.x)
    if (bins[b]) atomicAdd(&counts[b], bins[b]);
}

static __global__ void histogram_shared_kernel(const uint8_t *x, int32_t *counts, size_t n) {
  __shared__ int32_t bins[HISTOGRAM_BINS];
  clear_bins(bins);
  count_bytes(x, 0, n, bins);
  merge_bins(bins, counts);
}

// `nvec` uint4s start at byte `head`, x's first 16-byte boundary; the bytes before and after them
// are counted one at a time.
static __global__ void histogram_shared_uint4_kernel(const uint8_t *x, int32_t *counts, size_t n, size_t head,
                                                     size_t nvec) {
  __shared__ int32_t bins[HISTOGRAM_BINS];
  clear_bins(bins);
  const uint4 *v = (const uint4 *)(x + head);
  size_t stride = (size_t)gridDim.x * blockDim.x;
  for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < nvec; i += stride) {
    uint4 w = v[i];
    count_word(w.x, bins);
    count_word(w.y, bins);
    count_word(w.z, bins);
    count_word(w.w, bins);
  }
  count_bytes(x, 0, head, bins);
  count_bytes(x, head + 16 * nvec, n, bins);
  merge_bins(bins, counts);
}

// The arguments checked and counts cleared (a run overwrites them, so runs repeat); n == 0 ends here.
static cudaError_t check_and_clear(const uint8_t *x, int32_t *counts, size_t n, cudaStream_t stream) {
  if (!counts || (n && !x)) return cudaErrorInvalidValue;
  if (!is_aligned(counts, sizeof *counts)) return cudaErrorMisalignedAddress;
  return cudaMemsetAsync(counts, 0, HISTOGRAM_BINS * sizeof *counts, stream);
}

// A device fill of blocks, but no more than `work` items need: each block merges all its bins.
static unsigned capped(unsigned fill, size_t work) {
  size_t need = (work + kBlock - 1) / kBlock;
  return need == 0 ? 1 : need < fill ? (unsigned)need : fill;
}

extern "C" cudaError_t histogram_global(const uint8_t *x, int32_t *counts, size_t n, cudaStream_t stream) {
  cudaError_t err = check_and_clear(x, counts, n, stream);
  if (err != cudaSuccess || n == 0) return err;
  unsigned grid;
  if ((err = grid_for(n, kBlock, &grid)) != cudaSuccess) return err;
  histogram_global_kernel<<<grid, kBlock, 0, stream>>>(x, counts, n);
  return cudaGetLastError();
}

extern "C" cudaError_t histogram_shared(const uint8_t *x, int32_t *counts, size_t n, cudaStream_t stream) {
  cudaError_t err = check_and_clear(x, counts, n, stream);
  if (err != cudaSuccess || n == 0) return err;
  unsigned grid;
  if ((err = grid_fill_device(histogram_shared_kernel, kBlock, 0, &grid)) != cudaSuccess) return err;
  histogram_shared_kernel<<<capped(grid, n), kBlock, 0, stream>>>(x, counts, n);
  return cudaGetLastError();
}

extern "C" cudaError_t histogram_shared_uint4(const uint8_t *x, int32_t *counts, size_t n, cudaStream_t stream) {
  cudaError_t err = check_and_clear(x, counts, n, stream);
  if (err != cudaSuccess || n == 0) return err;
  size_t head = (16 - (uintptr_t)x % 16) % 16;
  if (head > n) head = n;
  size_t nvec = (n - head) / 16;
  unsigned grid;
  if ((err = grid_fill_device(histogram_shared_uint4_kernel, kBlock, 0, &grid)) != cudaSuccess) return err;
  histogram_shared_uint4_kernel<<<capped(grid, nvec), kBlock, 0, stream>>>(x, counts, n, head, nvec);
  return cudaGetLastError();
}
