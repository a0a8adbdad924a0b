/* dot_tree_host_finish waits on the host for the block totals its kernel writes into mapped page-locked
 * memory. A kernel that faults never writes them, so the wait must end with the stream's error instead of
 * spinning for ever (a CI job would hang until its timeout). This runs the variant with x pointing at no
 * memory at all (address 4096: below Linux's mmap_min_addr, so nothing can ever be mapped there) and
 * checks that the call returns an error. The fault leaves the context unusable, so this test is alone in
 * its process. A wait that never ends fails too: an alarm ends the test after ALARM_S seconds (a right
 * wait returns within milliseconds of the fault).
 */
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "kernels/dot/dot.h"
#include "tests/support/gpu_check.h"

enum { ALARM_S = 30 };
static const size_t kN = (size_t)1 << 20; /* a grid of many blocks, every one of which faults */

static void wait_never_ended(int sig) {
  (void)sig;
  static const char msg[] =
      "host_finish_fault_test: dot_tree_host_finish still waiting after a faulting kernel; "
      "its wait must end with the stream's error\n";
  ssize_t written = write(STDERR_FILENO, msg, sizeof msg - 1); /* async-signal-safe, unlike printf */
  (void)written;                                               /* failing either way */
  _exit(1);
}

START_TEST(faulting_kernel_ends_the_wait) {
  cudaStream_t stream;
  size_t sms;
  gpu_test_stream("host_finish_fault_test", &stream, &sms);
  float *y, *result;
  void *work;
  CUDA_OK(cudaMalloc((void **)&y, kN * sizeof(float)));
  CUDA_OK(cudaMemset(y, 0, kN * sizeof(float)));
  CUDA_OK(cudaMalloc((void **)&result, sizeof(float)));
  CUDA_OK(cudaMalloc(&work, dot_work_bytes(kN)));
  const float *nowhere = (const float *)(uintptr_t)4096;
  signal(SIGALRM, wait_never_ended);
  alarm(ALARM_S);
  cudaError_t err = dot_tree_host_finish(nowhere, y, kN, result, work, stream);
  alarm(0);
  printf("dot_tree_host_finish on a faulting kernel returned %s (%s)\n", cudaGetErrorName(err),
         cudaGetErrorString(err));
  ck_assert_msg(err != cudaSuccess && err != cudaErrorNotReady, "a faulting kernel's call returned %s",
                cudaGetErrorName(err));
}
END_TEST

int main(void) {
  require_gpu("host_finish_fault_test");
  Suite *s = suite_create("host_finish_fault");
  TCase *tc = tcase_create("fault");
  tcase_add_test(tc, faulting_kernel_ends_the_wait);
  suite_add_tcase(s, tc);
  return run_gpu_suite(s);
}
