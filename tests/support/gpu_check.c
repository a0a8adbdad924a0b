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

guarded_buf gbuf_alloc_elems(elem_type t, size_t n, size_t offset) {
  size_t guard = GUARD_BYTES / elem_size(t);
  guarded_buf b = {.type = t, .n = n, .offset = offset, .total = n + offset + 2 * guard};
  CUDA_OK(cudaMalloc(&b.base, b.total * elem_size(t)));
  gbuf_poison(&b, 0);
  CUDA_OK(cudaDeviceSynchronize()); /* poisoned before a kernel on any stream, a non-blocking one too, writes */
  b.ptr = (char *)b.base + (guard + offset) * elem_size(t);
  return b;
}

guarded_buf gbuf_alloc(size_t n, size_t offset) { return gbuf_alloc_elems(ELEM_F32, n, offset); }

void gbuf_upload(guarded_buf *b, const void *host) {
  if (b->n) CUDA_OK(cudaMemcpy(b->ptr, host, b->n * elem_size(b->type), cudaMemcpyHostToDevice));
}

void gbuf_download(const guarded_buf *b, void *host) {
  size_t size = elem_size(b->type), bytes = b->total * size;
  unsigned char *all = malloc(bytes);
  ck_assert_ptr_nonnull(all);
  CUDA_OK(cudaMemcpy(all, b->base, bytes, cudaMemcpyDeviceToHost));
  size_t user = GUARD_BYTES + b->offset * size, user_end = user + b->n * size;
  /* Byte by byte: a write of any width into a guard changes some byte of it. */
  for (size_t i = 0; i < bytes; i++) {
    if (i >= user && i < user_end) continue;
    ck_assert_msg(all[i] == 0xFF,
                  "write outside the %s buffer of %zu: guard element %td (relative to element 0) changed",
                  elem_name(b->type), b->n, (ptrdiff_t)(i / size) - (ptrdiff_t)(user / size));
  }
  if (b->n) memcpy(host, all + user, b->n * size);
  free(all);
}

void gbuf_poison(const guarded_buf *b, cudaStream_t stream) {
  CUDA_OK(cudaMemsetAsync(b->base, 0xFF, b->total * elem_size(b->type), stream));
}

void gbuf_free(guarded_buf *b) {
  CUDA_OK(cudaFree(b->base));
  b->base = b->ptr = NULL;
}

int run_gpu_suite(Suite *s) { return run_suite_in_process(s); }
