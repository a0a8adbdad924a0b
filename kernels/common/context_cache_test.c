/* The pinned scratch of context_cache belongs to the current CUDA context (and, for the pinned scratch, to the
 * calling thread), and stays usable as the benchmark runner's contexts come and go: a context made with
 * cuCtxCreate, used, destroyed, then another made, perhaps at the same CUcontext address. The device
 * workspace belongs to a context and a stream.
 *
 * A scratch buffer is checked by a copy from the device into it through its device address (as
 * dot_tree_host_finish's kernel writes it) and by cudaPointerGetAttributes: page-locked memory of a
 * live context is cudaMemoryTypeHost there, mapped (a device address); memory freed with a destroyed
 * context is not. A new scratch must be all zero (dot_tree_host_finish relies on it).
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "kernels/common/context_cache.h"
#include "perf/runner/driver_contexts.h"
#include "tests/support/gpu_check.h"

enum { WORDS = CONTEXT_SCRATCH_BYTES / sizeof(uint32_t) };

static void check_zeroed(const uint32_t *host) {
  for (size_t i = 0; i < WORDS; i++) ck_assert_msg(host[i] == 0, "word %zu of a new scratch: %#x", i, host[i]);
}

/* Fills the whole scratch from the device (every byte 0xA5, on a non-blocking stream as dot does) through
 * its device address, and checks every word on the host. */
static void check_scratch_copy(uint32_t *host) {
  struct cudaPointerAttributes attr;
  CUDA_OK(cudaPointerGetAttributes(&attr, host));
  ck_assert_msg(attr.type == cudaMemoryTypeHost,
                "scratch %p is not page-locked memory of the current context (type %d)", (void *)host, (int)attr.type);
  void *mapped;
  CUDA_OK(cudaHostGetDevicePointer(&mapped, host, 0));
  uint32_t *dev;
  CUDA_OK(cudaMalloc((void **)&dev, CONTEXT_SCRATCH_BYTES));
  for (size_t i = 0; i < WORDS; i++) host[i] = 0;
  cudaStream_t s; /* non-blocking, as the runner's and the tests' streams: the fill goes on it too */
  CUDA_OK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  CUDA_OK(cudaMemsetAsync(dev, 0xA5, CONTEXT_SCRATCH_BYTES, s));
  CUDA_OK(cudaMemcpyAsync(mapped, dev, CONTEXT_SCRATCH_BYTES, cudaMemcpyDeviceToDevice, s));
  CUDA_OK(cudaStreamSynchronize(s));
  for (size_t i = 0; i < WORDS; i++) ck_assert_msg(host[i] == 0xA5A5A5A5u, "word %zu of the scratch: %#x", i, host[i]);
  CUDA_OK(cudaStreamDestroy(s));
  CUDA_OK(cudaFree(dev));
}

static void *scratch_of_new_thread(void *out) {
  /* No context is current on a new thread: the cache makes the runtime's primary one current. */
  if (pinned_scratch_for_current_context(CONTEXT_SCRATCH_BYTES, (void **)out) != cudaSuccess) *(void **)out = NULL;
  return NULL;
}

START_TEST(scratch_per_context_and_thread) {
  void *first, *again, *other_thread = NULL, *too_big = NULL;
  CUDA_OK(pinned_scratch_for_current_context(CONTEXT_SCRATCH_BYTES, &first));
  CUDA_OK(pinned_scratch_for_current_context(4, &again));
  ck_assert_msg(first == again, "the scratch of one context and thread changed between calls: %p, %p", first, again);
  ck_assert_int_eq(pinned_scratch_for_current_context(CONTEXT_SCRATCH_BYTES + 1, &too_big), cudaErrorInvalidValue);
  check_zeroed(first);
  check_scratch_copy(first);

  pthread_t t;
  ck_assert_int_eq(pthread_create(&t, NULL, scratch_of_new_thread, &other_thread), 0);
  ck_assert_int_eq(pthread_join(t, NULL), 0);
  ck_assert_msg(other_thread && other_thread != first, "another thread got scratch %p (this one's: %p)", other_thread,
                first);

  char err[512];
  driver_context primary, made;
  ck_assert_msg(driver_context_current(&primary, err, sizeof err) == 0, "%s", err);
  int device;
  CUDA_OK(cudaGetDevice(&device));
  for (int round = 0; round < 3; round++) { /* made, used, destroyed; the next may reuse its address */
    ck_assert_msg(driver_context_create(device, &made, err, sizeof err) == 0, "%s", err);
    void *in_made;
    CUDA_OK(pinned_scratch_for_current_context(CONTEXT_SCRATCH_BYTES, &in_made));
    ck_assert_msg(in_made != first, "context %d got the primary context's scratch %p", round, first);
    check_zeroed(in_made); /* after the last round's scratch was filled: a new one, whatever its address */
    check_scratch_copy(in_made);
    ck_assert_msg(driver_context_destroy(made, err, sizeof err) == 0, "%s", err);
    ck_assert_msg(driver_context_set_current(primary, err, sizeof err) == 0, "%s", err);
  }
  CUDA_OK(pinned_scratch_for_current_context(CONTEXT_SCRATCH_BYTES, &again));
  ck_assert_msg(again == first, "back in the primary context the scratch changed: %p, was %p", again, first);
  check_scratch_copy(again);
}
END_TEST

/* Every byte of `bytes` of device memory at `dev` is `value`, read back in `stream`'s order. */
static void check_device_bytes(const void *dev, size_t bytes, unsigned char value, cudaStream_t stream,
                               const char *what) {
  unsigned char *host = malloc(bytes);
  ck_assert_ptr_nonnull(host);
  CUDA_OK(cudaMemcpyAsync(host, dev, bytes, cudaMemcpyDeviceToHost, stream));
  CUDA_OK(cudaStreamSynchronize(stream));
  for (size_t i = 0; i < bytes; i++) ck_assert_msg(host[i] == value, "%s: byte %zu is %#x", what, i, host[i]);
  free(host);
}

/* One workspace per context and stream: the same memory for a stream from call to call (a smaller
 * request included), other memory for another stream, the NULL stream and another context; a grow
 * while the stream still has work queued on the old memory waits for it (the stream is drained before
 * the free: the fill queued on the old memory must not land in the new one). */
START_TEST(workspace_per_context_and_stream) {
  cudaStream_t s1, s2;
  CUDA_OK(cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking));
  CUDA_OK(cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking));
  void *w1, *w, *w2, *w0;
  CUDA_OK(stream_workspace_for_current_context(s1, 1 << 20, &w1));
  ck_assert_ptr_nonnull(w1);
  CUDA_OK(stream_workspace_for_current_context(s1, 4096, &w));
  ck_assert_msg(w == w1, "a smaller request moved the workspace: %p, was %p", w, w1);
  CUDA_OK(stream_workspace_for_current_context(s2, 1 << 20, &w2));
  ck_assert_msg(w2 != w1, "two streams share workspace %p", w2);
  CUDA_OK(stream_workspace_for_current_context(NULL, 1 << 20, &w0));
  ck_assert_msg(w0 != w1 && w0 != w2, "the NULL stream shares workspace %p", w0);
  ck_assert_int_eq(stream_workspace_for_current_context(s1, 1, NULL), cudaErrorInvalidValue);

  /* Work still queued on the old memory when it grows: a fill of the whole old buffer, then the grown
   * one filled with another byte and read back whole. */
  CUDA_OK(cudaMemsetAsync(w1, 0x5A, 1 << 20, s1));
  CUDA_OK(stream_workspace_for_current_context(s1, 8 << 20, &w));
  CUDA_OK(cudaMemsetAsync(w, 0xA5, 8 << 20, s1)); /* the grown workspace is usable whole */
  check_device_bytes(w, 8 << 20, 0xA5, s1, "the grown workspace");
  void *w1g = w;

  char err[512];
  driver_context primary, made;
  ck_assert_msg(driver_context_current(&primary, err, sizeof err) == 0, "%s", err);
  int device;
  CUDA_OK(cudaGetDevice(&device));
  for (int round = 0; round < 2; round++) {
    ck_assert_msg(driver_context_create(device, &made, err, sizeof err) == 0, "%s", err);
    cudaStream_t sm;
    CUDA_OK(cudaStreamCreateWithFlags(&sm, cudaStreamNonBlocking));
    CUDA_OK(stream_workspace_for_current_context(sm, 1 << 20, &w));
    ck_assert_msg(w != w1g, "context %d got the primary context's workspace", round);
    CUDA_OK(cudaMemsetAsync(w, 0x3C, 1 << 20, sm));
    check_device_bytes(w, 1 << 20, 0x3C, sm, "a new context's workspace");
    CUDA_OK(cudaStreamDestroy(sm));
    ck_assert_msg(driver_context_destroy(made, err, sizeof err) == 0, "%s", err);
    ck_assert_msg(driver_context_set_current(primary, err, sizeof err) == 0, "%s", err);
  }
  CUDA_OK(stream_workspace_for_current_context(s1, 8 << 20, &w));
  ck_assert_msg(w == w1g, "back in the primary context the workspace moved: %p, was %p", w, w1g);
  CUDA_OK(cudaStreamDestroy(s1));
  CUDA_OK(cudaStreamDestroy(s2));
}
END_TEST

int main(void) {
  require_gpu("context_cache_test");
  Suite *s = suite_create("context_cache");
  TCase *tc = tcase_create("context_cache");
  tcase_add_test(tc, scratch_per_context_and_thread);
  tcase_add_test(tc, workspace_per_context_and_stream);
  suite_add_tcase(s, tc);
  return run_gpu_suite(s);
}
