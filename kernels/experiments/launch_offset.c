/* Where the run-to-run spread of small benchmarks comes from (docs/RESULTS.md,
 * "Run-to-run spread at small sizes"). One process times add_float4 at N floats
 * several ways, interleaved in blocks of 50 samples, and prints the median
 * event interval (ns) of each on one line. Run it in several processes and
 * compare the lines: a setting that removed the per-process offset would show
 * a smaller spread between processes than `flush_add`.
 *
 *   launch_offset [--samples=S] [--contexts=K] [N]   (default S = 2000, K = 1, N = 2^20)
 *
 * S is rounded down to a multiple of 50; a block of 50 per setting is warm-up.
 * With K > 1 the whole measurement is done K times in one process, each time
 * in a fresh CUDA context (cudaDeviceReset between), one line each: if the
 * lines of one process differ as much as those of different processes, the
 * offset belongs to the context, and a new context per repetition samples it.
 *
 * Settings (every one on one stream unless said):
 *   flush_add       read flush -> start -> add_float4 -> stop (the runner's way)
 *   flush_spin_add  read flush -> 3 us spin -> start -> add_float4 -> stop
 *   flush_empty     read flush -> start -> empty kernel -> stop
 *   hot_empty       20 us spin -> start -> empty kernel -> stop
 *   flush_batch4    read flush -> start -> add_float4 on 4 buffer sets -> stop, / 4
 *   flush_streams8  flush_add, samples spread over 8 streams
 *   flush_bufs4     flush_add, flushing with 4 buffers in turn */
#define _GNU_SOURCE /* sched_getcpu */
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "kernels/elementwise/elementwise.h"
#include "kernels/experiments/launch_probe.h"
#include "perf/runner/untimed.h"

#define CHECK(call)                                                                                                \
  do {                                                                                                             \
    cudaError_t e_ = (call);                                                                                       \
    if (e_ != cudaSuccess) {                                                                                       \
      fprintf(stderr, "launch_offset: %s failed: %s (%s)\n", #call, cudaGetErrorName(e_), cudaGetErrorString(e_)); \
      exit(1);                                                                                                     \
    }                                                                                                              \
  } while (0)

enum { FLUSH_ADD, FLUSH_SPIN_ADD, FLUSH_EMPTY, HOT_EMPTY, FLUSH_BATCH4, FLUSH_STREAMS8, FLUSH_BUFS4, SETTINGS };
static const char *kSetting[SETTINGS] = {"flush_add",    "flush_spin_add", "flush_empty", "hot_empty",
                                         "flush_batch4", "flush_streams8", "flush_bufs4"};
enum { SETS = 4, STREAMS = 8, FLUSH_BUFS = 4, BLOCK = 50 };

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static void measure(size_t n, long samples, int ctx);

int main(int argc, char **argv) {
  long samples = 2000, contexts = 1;
  size_t n = 1u << 20;
  for (int i = 1; i < argc; i++) {
    char *end;
    if (strncmp(argv[i], "--contexts=", 11) == 0) {
      contexts = strtol(argv[i] + 11, &end, 10);
      if (*end || contexts < 1 || contexts > 1000) {
        fprintf(stderr, "launch_offset: --contexts wants an integer from 1 to 1000, got '%s'\n", argv[i] + 11);
        return 2;
      }
    } else if (strncmp(argv[i], "--samples=", 10) == 0) {
      samples = strtol(argv[i] + 10, &end, 10);
      if (*end || samples < BLOCK || samples > 1000000) {
        fprintf(stderr, "launch_offset: --samples wants an integer from %d to 1000000, got '%s'\n", BLOCK,
                argv[i] + 10);
        return 2;
      }
    } else {
      n = strtoull(argv[i], &end, 0);
      if (*end || n == 0) {
        fprintf(stderr, "usage: launch_offset [--samples=S] [--contexts=K] [N]   (N floats, > 0)\n");
        return 2;
      }
    }
  }
  for (int ctx = 0; ctx < contexts; ctx++) {
    measure(n, samples, ctx);
    CHECK(cudaDeviceReset()); /* frees everything; the next call makes a new context */
  }
  return 0;
}

/* One full measurement in the current context; prints its line. */
static void measure(size_t n, long samples, int ctx) {
  struct cudaDeviceProp prop;
  CHECK(cudaGetDeviceProperties(&prop, 0));
  size_t flush_bytes = 2 * (size_t)prop.l2CacheSize;
  void *flush[FLUSH_BUFS];
  for (int i = 0; i < FLUSH_BUFS; i++) {
    CHECK(cudaMalloc(&flush[i], flush_bytes));
    CHECK(cudaMemset(flush[i], 0, flush_bytes));
  }
  float *a[SETS], *b[SETS], *c[SETS];
  for (int s = 0; s < SETS; s++) {
    CHECK(cudaMalloc((void **)&a[s], n * sizeof(float)));
    CHECK(cudaMalloc((void **)&b[s], n * sizeof(float)));
    CHECK(cudaMalloc((void **)&c[s], n * sizeof(float)));
    CHECK(cudaMemset(a[s], 0x3f, n * sizeof(float))); /* 0x3f3f3f3f = 0.747f: not zeros */
    CHECK(cudaMemset(b[s], 0x3f, n * sizeof(float)));
  }
  cudaStream_t stream[STREAMS];
  cudaEvent_t start[STREAMS], stop[STREAMS];
  for (int i = 0; i < STREAMS; i++) {
    CHECK(cudaStreamCreateWithFlags(&stream[i], cudaStreamNonBlocking));
    CHECK(cudaEventCreate(&start[i]));
    CHECK(cudaEventCreate(&stop[i]));
  }
  CHECK(cudaDeviceSynchronize()); /* the memsets above ran on the legacy stream */
  /* The empty kernel gets about the grid of a one-float4-per-thread kernel. */
  size_t want = (n / 4 + 255) / 256, cap = 8 * (size_t)prop.multiProcessorCount;
  unsigned empty_blocks = (unsigned)(want == 0 ? 1 : want < cap ? want : cap);

  long blocks = samples / BLOCK;
  double *t[SETTINGS];
  for (int k = 0; k < SETTINGS; k++) {
    t[k] = malloc(blocks * BLOCK * sizeof(double));
    if (!t[k]) {
      fprintf(stderr, "launch_offset: out of host memory\n");
      exit(1);
    }
  }
  /* Block 0 of each setting is warm-up and not kept. */
  for (long blk = 0; blk <= blocks; blk++) {
    for (int k = 0; k < SETTINGS; k++) {
      for (int j = 0; j < BLOCK; j++) {
        int si = k == FLUSH_STREAMS8 ? j % STREAMS : 0;
        void *fb = flush[k == FLUSH_BUFS4 ? j % FLUSH_BUFS : 0];
        cudaStream_t s = stream[si];
        if (k == HOT_EMPTY)
          CHECK(bench_gpu_spin(20000, s));
        else
          CHECK(bench_l2_flush_read(fb, flush_bytes, prop.multiProcessorCount, s));
        if (k == FLUSH_SPIN_ADD) CHECK(bench_gpu_spin(3000, s));
        CHECK(cudaEventRecord(start[si], s));
        if (k == FLUSH_EMPTY || k == HOT_EMPTY)
          CHECK(launch_probe_empty(empty_blocks, s));
        else if (k == FLUSH_BATCH4)
          for (int set = 0; set < SETS; set++) CHECK(ew_add_float4(a[set], b[set], c[set], n, s));
        else
          CHECK(ew_add_float4(a[0], b[0], c[0], n, s));
        CHECK(cudaEventRecord(stop[si], s));
        CHECK(cudaEventSynchronize(stop[si]));
        float ms;
        CHECK(cudaEventElapsedTime(&ms, start[si], stop[si]));
        if (blk > 0) t[k][(blk - 1) * BLOCK + j] = ms * 1e6 / (k == FLUSH_BATCH4 ? SETS : 1);
      }
    }
  }
  printf("N=%zu ctx=%d cpu=%d on %s:", n, ctx, sched_getcpu(), prop.name);
  for (int k = 0; k < SETTINGS; k++) {
    qsort(t[k], blocks * BLOCK, sizeof(double), cmp_double);
    printf(" %s=%.0f", kSetting[k], t[k][blocks * BLOCK / 2]);
    free(t[k]);
  }
  printf("\n");
  fflush(stdout);
}
