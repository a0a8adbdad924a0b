/* An independent check of the runner's numbers: a minimal event-timed loop
 * over the same kernels, measured the same way (L2 flush before each sample,
 * CUDA events around the kernel alone, median of many samples), sharing no code
 * with the runner library. Its flush reads a zeroed buffer twice the L2 (with
 * the reduce kernel v7, which writes one float), like the runner's default
 * read flush, so the L2 holds clean lines when the timed kernel starts.
 *
 *   crosscheck [--samples=N] [--runner_json=FILE]... [N...]
 *
 * Prints GB/s of add_float4, copy_float4 and cudaMemcpy device-to-device at
 * each N (floats; default 2^20, 2^24, 2^28). Each --runner_json file (written by
 * elementwise_bench or copy_bench with --benchmark_out) adds the runner's GB/s
 * for the same benchmark and the difference; the exit status is 1 if any
 * differs by more than 2%, or on a CUDA error. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "kernels/copy/copy.h"
#include "kernels/elementwise/elementwise.h"
#include "kernels/reduce/reduce.h"
#include "perf/gate/figures.h"

#define CHECK(call)                                                                                             \
  do {                                                                                                          \
    cudaError_t e_ = (call);                                                                                    \
    if (e_ != cudaSuccess) {                                                                                    \
      fprintf(stderr, "crosscheck: %s failed: %s (%s)\n", #call, cudaGetErrorName(e_), cudaGetErrorString(e_)); \
      exit(1);                                                                                                  \
    }                                                                                                           \
  } while (0)

#define MAX_FILES 16
#define TOLERANCE_PCT 2.0

static int cmp_float(const void *a, const void *b) {
  float x = *(const float *)a, y = *(const float *)b;
  return (x > y) - (x < y);
}

enum { K_ADD, K_COPY, K_MEMCPY, K_COUNT };
static const char *kKernel[K_COUNT] = {"add_float4", "copy_float4", "memcpy"};
static const char *kRunnerName[K_COUNT] = {"elementwise/add_float4", "copy/copy_float4", "copy/memcpy"};

static cudaError_t launch(int k, float *a, float *b, float *c, size_t n, cudaStream_t s) {
  switch (k) {
    case K_ADD: return ew_add_float4(a, b, c, n, s);
    case K_COPY: return copy_float4(a, c, n, s);
    default: return copy_memcpy(a, c, n, s);
  }
}

/* Median GPU time (ms) of `samples` runs, each after an untimed L2 flush. */
static float time_kernel(int k, float *a, float *b, float *c, size_t n, const float *flush, size_t flush_bytes,
                         float *flush_sum, void *flush_work, int samples, cudaStream_t s) {
  cudaEvent_t start, stop;
  CHECK(cudaEventCreate(&start));
  CHECK(cudaEventCreate(&stop));
  for (int i = 0; i < 10; i++) CHECK(launch(k, a, b, c, n, s));
  CHECK(cudaStreamSynchronize(s));
  float *ms = malloc((size_t)samples * sizeof *ms);
  if (!ms) exit(1);
  for (int i = 0; i < samples; i++) {
    CHECK(reduce_v7_shuffle_vec4(flush, flush_bytes / sizeof(float), flush_sum, flush_work, s));
    CHECK(cudaEventRecord(start, s));
    CHECK(launch(k, a, b, c, n, s));
    CHECK(cudaEventRecord(stop, s));
    CHECK(cudaEventSynchronize(stop));
    CHECK(cudaEventElapsedTime(&ms[i], start, stop));
  }
  qsort(ms, (size_t)samples, sizeof *ms, cmp_float);
  float med = samples % 2 ? ms[samples / 2] : 0.5f * (ms[samples / 2 - 1] + ms[samples / 2]);
  free(ms);
  CHECK(cudaEventDestroy(start));
  CHECK(cudaEventDestroy(stop));
  return med;
}

/* The runner's GB/s for `name`, as the gate reads it (the bandwidth of its median); 0 if the
 * file does not hold it. */
static double runner_gbps(const gate_figures *run, const char *name) {
  const gate_bench *b = find_bench(run, name);
  return b ? b->bytes_per_second / 1e9 : 0;
}

static void fill(float *x, size_t n, unsigned long long seed) {
  for (size_t i = 0; i < n; i++) {
    seed = seed * 6364136223846793005ull + 1442695040888963407ull;
    x[i] = 0.5f + (float)(seed >> 40) / (float)(1ull << 24); /* [0.5, 1.5): never zero */
  }
}

typedef struct {
  int samples;
  size_t sizes[16];
  int nsizes;
  gate_figures runs[MAX_FILES];
  const char *file_names[MAX_FILES];
  int nfiles;
} options;

/* 0, or 2 after a message: a bad flag, or a runner JSON that does not load. */
static int parse_args(int argc, char **argv, options *o) {
  *o = (options){.samples = 200};
  for (int i = 1; i < argc; i++) {
    if (!strncmp(argv[i], "--samples=", 10)) {
      o->samples = atoi(argv[i] + 10);
      if (o->samples < 1) {
        fprintf(stderr, "crosscheck: --samples must be >= 1\n");
        return 2;
      }
    } else if (!strncmp(argv[i], "--runner_json=", 14) && o->nfiles < MAX_FILES) {
      char err[1024];
      o->file_names[o->nfiles] = argv[i] + 14;
      if (load_run(o->file_names[o->nfiles], &o->runs[o->nfiles], err, sizeof err)) {
        fprintf(stderr, "crosscheck: %s\n", err);
        return 2;
      }
      o->nfiles++;
    } else if (argv[i][0] != '-' && o->nsizes < 16 && strtoull(argv[i], NULL, 0) > 0) {
      o->sizes[o->nsizes++] = (size_t)strtoull(argv[i], NULL, 0);
    } else {
      fprintf(stderr, "usage: crosscheck [--samples=N] [--runner_json=FILE]... [N...]\n");
      return 2;
    }
  }
  if (o->nsizes == 0) {
    o->sizes[0] = 1u << 20;
    o->sizes[1] = 1u << 24;
    o->sizes[2] = 1u << 28;
    o->nsizes = 3;
  }
  return 0;
}

/* The untimed L2 flush: a v7 sum over twice the L2's bytes. */
typedef struct {
  float *buf, *sum;
  void *work;
  size_t bytes;
} l2_flush;

/* Times every kernel at size n and compares with the runner's figures in o's files; 1 if any
 * disagrees beyond TOLERANCE_PCT. */
static int check_size(const options *o, size_t n, const l2_flush *fl, cudaStream_t s) {
  float *h = malloc(n * sizeof *h), *a, *b, *c;
  if (!h) exit(1);
  CHECK(cudaMalloc((void **)&a, n * sizeof(float)));
  CHECK(cudaMalloc((void **)&b, n * sizeof(float)));
  CHECK(cudaMalloc((void **)&c, n * sizeof(float)));
  fill(h, n, 1);
  CHECK(cudaMemcpy(a, h, n * sizeof(float), cudaMemcpyHostToDevice));
  fill(h, n, 2);
  CHECK(cudaMemcpy(b, h, n * sizeof(float), cudaMemcpyHostToDevice));
  CHECK(cudaMemset(c, 0xFF, n * sizeof(float)));
  CHECK(cudaDeviceSynchronize()); /* those ran on the legacy stream; s does not wait for it */
  free(h);
  int fail = 0;
  for (int k = 0; k < K_COUNT; k++) {
    double bytes = (k == K_ADD ? 12.0 : 8.0) * (double)n;
    float ms = time_kernel(k, a, b, c, n, fl->buf, fl->bytes, fl->sum, fl->work, o->samples, s);
    double gbps = bytes / (ms * 1e-3) / 1e9;
    printf("%-12s N=%-10zu median %10.2f us  %8.1f GB/s\n", kKernel[k], n, ms * 1e3, gbps);
    char name[128];
    snprintf(name, sizeof name, "%s/N:%zu", kRunnerName[k], n);
    for (int f = 0; f < o->nfiles; f++) {
      double r = runner_gbps(&o->runs[f], name);
      if (r <= 0) continue; /* this file holds another family */
      double diff = 100 * (r - gbps) / gbps;
      int ok = fabs(diff) <= TOLERANCE_PCT;
      if (!ok) fail = 1;
      printf("    runner %-40s %8.1f GB/s  diff %+6.2f%%  %s  (%s)\n", name, r, diff, ok ? "agree" : "DISAGREE",
             o->file_names[f]);
    }
  }
  CHECK(cudaFree(a));
  CHECK(cudaFree(b));
  CHECK(cudaFree(c));
  return fail;
}

int main(int argc, char **argv) {
  options o;
  if (parse_args(argc, argv, &o)) return 2;
  int dev = 0, l2 = 0;
  CHECK(cudaGetDevice(&dev));
  CHECK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, dev));
  struct cudaDeviceProp prop;
  CHECK(cudaGetDeviceProperties(&prop, dev));
  l2_flush fl = {.bytes = 2 * (size_t)l2};
  CHECK(cudaMalloc((void **)&fl.buf, fl.bytes));
  CHECK(cudaMemset(fl.buf, 0, fl.bytes));
  CHECK(cudaMalloc((void **)&fl.sum, sizeof(float)));
  CHECK(cudaMalloc(&fl.work, reduce_work_bytes(fl.bytes / sizeof(float))));
  cudaStream_t s;
  CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  printf("crosscheck on %s: L2 %d bytes, flush %zu bytes, median of %d samples\n", prop.name, l2, fl.bytes, o.samples);
  int worst_fail = 0;
  for (int si = 0; si < o.nsizes; si++) worst_fail |= check_size(&o, o.sizes[si], &fl, s);
  CHECK(cudaFree(fl.buf));
  CHECK(cudaFree(fl.sum));
  CHECK(cudaFree(fl.work));
  CHECK(cudaStreamDestroy(s));
  for (int f = 0; f < o.nfiles; f++) free_figures(&o.runs[f]);
  if (o.nfiles)
    printf("%s (tolerance %.0f%%)\n", worst_fail ? "FAIL: runner and crosscheck disagree" : "OK: agree", TOLERANCE_PCT);
  return worst_fail;
}
