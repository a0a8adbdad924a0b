/* How fast does the per-context offset of a short kernel average out (docs/RESULTS.md,
 * "Run-to-run spread at small sizes")? Each CUDA context shifts every sample of a 7 us
 * kernel by 100-400 ns, so a stable figure needs the mean over many contexts. This
 * program takes the runner's sample (read flush -> start -> add_float4 -> stop) in K
 * contexts of one process, one of two ways:
 *
 *   interleaved  K contexts made up front (perf/runner/driver_contexts.h) and alive
 *                together; blocks of 50 samples taken from each in turn (the runtime
 *                launches into whichever context is current);
 *   sequential   one context at a time: made, measured, destroyed.
 *
 * It prints each context's median (ns), their mean and the standard deviation between
 * contexts, and the seconds the measurement took. Run it in several processes: the
 * spread of the means between processes is what a gate built on that design would see.
 *
 *   context_spread --mode=interleaved|sequential [--contexts=K] [--samples=S] [N]
 *   (defaults K = 16, S = 1000 samples per context, rounded down to blocks of 50, the
 *   first block of each context being warm-up; N = 2^20 floats)
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cuda_runtime_api.h>

#include "kernels/elementwise/elementwise.h"
#include "perf/runner/driver_contexts.h"
#include "perf/runner/untimed.h"

#define CHECK(call)                                                                                                 \
  do {                                                                                                              \
    cudaError_t e_ = (call);                                                                                        \
    if (e_ != cudaSuccess) {                                                                                        \
      fprintf(stderr, "context_spread: %s failed: %s (%s)\n", #call, cudaGetErrorName(e_), cudaGetErrorString(e_)); \
      exit(1);                                                                                                      \
    }                                                                                                               \
  } while (0)

#define DRIVER(call)                                 \
  do {                                               \
    char why_[256];                                  \
    if ((call) != 0) {                               \
      fprintf(stderr, "context_spread: %s\n", why_); \
      exit(1);                                       \
    }                                                \
  } while (0)

enum { BLOCK = 50 };

typedef struct {
  driver_context ctx;
  void *flush;
  float *a, *b, *c;
  cudaStream_t stream;
  cudaEvent_t start, stop;
  double *t; /* kept samples, ns */
  long nt;
} context_state;

static size_t n_floats, flush_bytes;
static int sm_count;

static int cmp_double(const void *x, const void *y) {
  double a = *(const double *)x, b = *(const double *)y;
  return (a > b) - (a < b);
}

/* Makes a context (current from then on) and its buffers; inputs are not zeros. */
static void open_context(context_state *k, long kept) {
  DRIVER(driver_context_create(0, &k->ctx, why_, sizeof why_));
  CHECK(cudaMalloc(&k->flush, flush_bytes));
  CHECK(cudaMemset(k->flush, 0, flush_bytes));
  CHECK(cudaMalloc((void **)&k->a, n_floats * sizeof(float)));
  CHECK(cudaMalloc((void **)&k->b, n_floats * sizeof(float)));
  CHECK(cudaMalloc((void **)&k->c, n_floats * sizeof(float)));
  CHECK(cudaMemset(k->a, 0x3f, n_floats * sizeof(float))); /* 0x3f3f3f3f = 0.747f */
  CHECK(cudaMemset(k->b, 0x3f, n_floats * sizeof(float)));
  CHECK(cudaStreamCreateWithFlags(&k->stream, cudaStreamNonBlocking));
  CHECK(cudaEventCreate(&k->start));
  CHECK(cudaEventCreate(&k->stop));
  CHECK(cudaDeviceSynchronize()); /* the memsets ran on the legacy stream */
  k->t = malloc((size_t)kept * sizeof(double));
  if (!k->t) {
    fprintf(stderr, "context_spread: out of host memory\n");
    exit(1);
  }
  k->nt = 0;
}

/* One block of samples in the current context; kept unless it is the warm-up block. */
static void take_block(context_state *k, int keep) {
  for (int j = 0; j < BLOCK; j++) {
    CHECK(bench_l2_flush_read(k->flush, flush_bytes, sm_count, k->stream));
    CHECK(cudaEventRecord(k->start, k->stream));
    CHECK(ew_add_float4(k->a, k->b, k->c, n_floats, k->stream));
    CHECK(cudaEventRecord(k->stop, k->stream));
    CHECK(cudaEventSynchronize(k->stop));
    float ms;
    CHECK(cudaEventElapsedTime(&ms, k->start, k->stop));
    if (keep) k->t[k->nt++] = ms * 1e6;
  }
}

static double close_context(context_state *k) {
  CHECK(cudaFree(k->flush));
  CHECK(cudaFree(k->a));
  CHECK(cudaFree(k->b));
  CHECK(cudaFree(k->c));
  CHECK(cudaStreamDestroy(k->stream));
  CHECK(cudaEventDestroy(k->start));
  CHECK(cudaEventDestroy(k->stop));
  DRIVER(driver_context_destroy(k->ctx, why_, sizeof why_));
  qsort(k->t, (size_t)k->nt, sizeof(double), cmp_double);
  double median = k->nt % 2 ? k->t[k->nt / 2] : 0.5 * (k->t[k->nt / 2 - 1] + k->t[k->nt / 2]);
  free(k->t);
  return median;
}

static double seconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

static long int_arg(const char *flag, const char *v, long lo, long hi) {
  char *end;
  long x = strtol(v, &end, 10);
  if (end == v || *end || x < lo || x > hi) {
    fprintf(stderr, "context_spread: %s wants an integer from %ld to %ld, got '%s'\n", flag, lo, hi, v);
    exit(2);
  }
  return x;
}

int main(int argc, char **argv) {
  long contexts = 16, samples = 1000;
  int interleaved = -1;
  n_floats = 1u << 20;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--mode=interleaved"))
      interleaved = 1;
    else if (!strcmp(argv[i], "--mode=sequential"))
      interleaved = 0;
    else if (!strncmp(argv[i], "--contexts=", 11))
      contexts = int_arg("--contexts", argv[i] + 11, 1, 256);
    else if (!strncmp(argv[i], "--samples=", 10))
      samples = int_arg("--samples", argv[i] + 10, BLOCK, 1000000);
    else if (argv[i][0] != '-')
      n_floats = (size_t)int_arg("N", argv[i], 1, 1L << 30);
    else
      interleaved = -2;
  }
  if (interleaved < 0) {
    fprintf(stderr, "usage: context_spread --mode=interleaved|sequential [--contexts=K] [--samples=S] [N]\n");
    return 2;
  }
  struct cudaDeviceProp prop;
  CHECK(cudaGetDeviceProperties(&prop, 0));
  flush_bytes = 2 * (size_t)prop.l2CacheSize;
  sm_count = prop.multiProcessorCount;

  long blocks = samples / BLOCK; /* kept blocks; one more is warm-up */
  context_state *k = calloc((size_t)contexts, sizeof *k);
  double *median = calloc((size_t)contexts, sizeof *median);
  if (!k || !median) return 1;
  double t0 = seconds();
  if (interleaved) {
    for (long i = 0; i < contexts; i++) open_context(&k[i], blocks * BLOCK);
    for (long blk = 0; blk <= blocks; blk++)
      for (long i = 0; i < contexts; i++) {
        DRIVER(driver_context_set_current(k[i].ctx, why_, sizeof why_));
        take_block(&k[i], blk > 0);
      }
    for (long i = 0; i < contexts; i++) {
      DRIVER(driver_context_set_current(k[i].ctx, why_, sizeof why_));
      median[i] = close_context(&k[i]);
    }
  } else {
    for (long i = 0; i < contexts; i++) {
      open_context(&k[i], blocks * BLOCK);
      for (long blk = 0; blk <= blocks; blk++) take_block(&k[i], blk > 0);
      median[i] = close_context(&k[i]);
    }
  }
  double took = seconds() - t0, mean = 0, var = 0;
  for (long i = 0; i < contexts; i++) mean += median[i] / contexts;
  for (long i = 0; i < contexts; i++)
    var += (median[i] - mean) * (median[i] - mean) / (contexts > 1 ? contexts - 1 : 1);
  printf("%s N=%zu K=%ld S=%ld on %s: mean %.1f ns, sd between contexts %.1f ns, %.2f s; medians",
         interleaved ? "interleaved" : "sequential", n_floats, contexts, blocks * BLOCK, prop.name, mean, sqrt(var),
         took);
  for (long i = 0; i < contexts; i++) printf(" %.0f", median[i]);
  printf("\n");
  free(k);
  free(median);
  return 0;
}
