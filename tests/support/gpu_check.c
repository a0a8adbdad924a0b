#include "tests/support/gpu_check.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/support/check_run.h"
#include "tests/support/host_check.h"

void require_gpu(const char *test_name) {
  int count = 0;
  cudaError_t err = cudaGetDeviceCount(&count);
  if (err != cudaSuccess || count == 0) {
    fprintf(stderr,
            "FAIL %s: this is a GPU test and no CUDA GPU is usable here (cudaGetDeviceCount: %s, %d devices).\n"
            "  Run it on a GPU host, or leave GPU-tagged tests out: bazel test //... --config=cpu\n",
            test_name, err == cudaSuccess ? "no devices" : cudaGetErrorString(err), count);
    exit(1);
  }
  int dev = 0;
  struct cudaDeviceProp prop;
  if (cudaGetDevice(&dev) != cudaSuccess || cudaGetDeviceProperties(&prop, dev) != cudaSuccess) {
    fprintf(stderr, "FAIL %s: cannot query the CUDA device\n", test_name);
    exit(1);
  }
  printf("%s on GPU %d: %s (sm_%d%d, %d SMs)\n", test_name, dev, prop.name, prop.major, prop.minor,
         prop.multiProcessorCount);
  fflush(stdout);
}

void gpu_test_stream(const char *test_name, cudaStream_t *stream, size_t *sm_count) {
  int dev = 0, sms = 0;
  if (cudaGetDevice(&dev) != cudaSuccess || cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev) ||
      cudaStreamCreateWithFlags(stream, cudaStreamNonBlocking) != cudaSuccess) {
    fprintf(stderr, "FAIL %s: cannot query the device or create a stream\n", test_name);
    exit(1);
  }
  *sm_count = (size_t)sms;
}

guarded_buf gbuf_alloc(size_t n, size_t offset) {
  guarded_buf b = {.n = n, .offset = offset, .total = n + offset + 2 * GUARD_FLOATS};
  CUDA_OK(cudaMalloc((void **)&b.base, b.total * sizeof(float)));
  CUDA_OK(cudaMemset(b.base, 0xFF, b.total * sizeof(float))); /* poison: all-ones NaN */
  b.ptr = b.base + GUARD_FLOATS + offset;
  return b;
}

void gbuf_upload(guarded_buf *b, const float *host) {
  if (b->n) CUDA_OK(cudaMemcpy(b->ptr, host, b->n * sizeof(float), cudaMemcpyHostToDevice));
}

void gbuf_download(const guarded_buf *b, float *host) {
  float *all = malloc(b->total * sizeof(float));
  ck_assert_ptr_nonnull(all);
  CUDA_OK(cudaMemcpy(all, b->base, b->total * sizeof(float), cudaMemcpyDeviceToHost));
  size_t user = GUARD_FLOATS + b->offset;
  for (size_t i = 0; i < b->total; i++) {
    if (i >= user && i < user + b->n) continue;
    ck_assert_msg(is_poison(all[i]), "write outside the buffer: guard element %td (relative to element 0) changed",
                  (ptrdiff_t)i - (ptrdiff_t)user);
  }
  if (b->n) memcpy(host, all + user, b->n * sizeof(float));
  free(all);
}

void gbuf_free(guarded_buf *b) {
  CUDA_OK(cudaFree(b->base));
  b->base = b->ptr = NULL;
}

int run_gpu_suite(Suite *s) { return run_suite_in_process(s); }
