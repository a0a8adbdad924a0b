/* GPU-side helpers for correctness tests (host C code over the CUDA runtime). */
#ifndef TESTS_SUPPORT_GPU_CHECK_H
#define TESTS_SUPPORT_GPU_CHECK_H

#include <stddef.h>
#include <check.h>
#include <cuda_runtime_api.h>

#include "tests/support/host_check.h"

/* Every CUDA call in a test goes through this: a failure names the call and error. */
#define CUDA_OK(call)                                                                                       \
  do {                                                                                                      \
    cudaError_t cuda_ok_err_ = (call);                                                                      \
    ck_assert_msg(cuda_ok_err_ == cudaSuccess, "%s failed: %s (%s)", #call, cudaGetErrorName(cuda_ok_err_), \
                  cudaGetErrorString(cuda_ok_err_));                                                        \
  } while (0)

/* Call first in a GPU test's main(). With no usable GPU it prints why and how to
 * leave GPU tests out (--config=cpu), then exits 1: a GPU test never passes
 * without a GPU. Otherwise prints the device it runs on. */
void require_gpu(const char *test_name);

/* A non-blocking stream for a test (a variant that put part of its work on another
 * stream would race with it and show) and the device's SM count. Exits 1 with a
 * message when either cannot be had. */
void gpu_test_stream(const char *test_name, cudaStream_t *stream, size_t *sm_count);

/* A device buffer of `n` elements of a type (host_check.h: elem_type) preceded and followed by
 * GUARD_BYTES of guard, all poisoned (every bit set), so unwritten outputs and out-of-bounds writes
 * are both visible. `offset` (in elements) shifts the user pointer off 16-byte alignment: 0..3 for
 * floats, 0..15 for bytes. Every call checks its CUDA calls (a failure fails the test). */
typedef struct {
  elem_type type;
  void *base; /* allocation start */
  void *ptr;  /* what the kernel gets: GUARD_BYTES + offset elements past base */
  size_t n, offset;
  size_t total; /* elements in the allocation, guards included */
} guarded_buf;

#define GUARD_BYTES 256 /* keeps ptr 256-byte aligned at offset 0, for every type */

guarded_buf gbuf_alloc_elems(elem_type t, size_t n, size_t offset);
/* gbuf_alloc_elems(ELEM_F32, n, offset). */
guarded_buf gbuf_alloc(size_t n, size_t offset);
/* Copies n elements of host data into the user region (the guards stay poisoned). */
void gbuf_upload(guarded_buf *b, const void *host);
/* Copies the user region back into n elements at host and checks both guards are untouched. */
void gbuf_download(const guarded_buf *b, void *host);
/* Poisons the whole allocation again, guards included, on `stream` (before a variant runs again). */
void gbuf_poison(const guarded_buf *b, cudaStream_t stream);
void gbuf_free(guarded_buf *b);

/* Runs Check's suite in this process (CUDA contexts do not survive fork()) and
 * returns the process exit status. */
int run_gpu_suite(Suite *s);

#endif
