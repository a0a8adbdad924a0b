#define _POSIX_C_SOURCE 200809L
/* CPU tests of the testbed: its name from the host's facts, the CPU model from /proc/cpuinfo, and
 * PERF_TESTBED, which CI sets to name its runner class. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "perf/runner/testbed.h"
#include "tests/support/check_run.h"

START_TEST(name_is_gpu_count_link_cpu_and_driver) {
  testbed_facts f = {.gpu_name = "NVIDIA H100 80GB HBM3",
                     .gpus = 2,
                     .nvlinks = 18,
                     .cpu_model = "AMD EPYC 9654 96-Core Processor",
                     .driver = "580.159.04"};
  char name[TESTBED_MAX];
  testbed_name(&f, name, sizeof name);
  ck_assert_str_eq(name, "NVIDIA H100 80GB HBM3 x2 NVLink | AMD EPYC 9654 96-Core Processor | driver 580.159.04");
  f.gpus = 1;
  f.nvlinks = 0;
  testbed_name(&f, name, sizeof name);
  ck_assert_str_eq(name, "NVIDIA H100 80GB HBM3 x1 no NVLink | AMD EPYC 9654 96-Core Processor | driver 580.159.04");
  /* What is unknown says so: it never reads as another host's value. */
  testbed_facts none = {.nvlinks = -1};
  testbed_name(&none, name, sizeof name);
  ck_assert_str_eq(name, "unknown GPU x? NVLink unknown | unknown CPU | driver unknown");
}
END_TEST

START_TEST(cpu_model_is_the_first_model_name_squeezed) {
  char m[128];
  ck_assert_int_eq(testbed_cpu_model("perf/runner/testdata/cpuinfo_epyc.txt", m, sizeof m), 0);
  ck_assert_str_eq(m, "AMD EPYC 9654 96-Core Processor");
  ck_assert_int_eq(testbed_cpu_model("/nonexistent/cpuinfo", m, sizeof m), -1);
  ck_assert_str_eq(m, "");
}
END_TEST

START_TEST(perf_testbed_names_it_and_is_validated) {
  char why[256];
  ck_assert_int_eq(testbed_valid_name("h100-pool-a", why, sizeof why), 0);
  ck_assert_int_eq(testbed_valid_name("   ", why, sizeof why), 1);
  ck_assert_int_eq(testbed_valid_name("a\tb", why, sizeof why), 1);
  ck_assert_ptr_nonnull(strstr(why, "character 2"));
  ck_assert_int_eq(testbed_valid_name("pool,a", why, sizeof why), 1); /* the history is plain CSV */
  char longer[260];
  memset(longer, 'a', 201);
  longer[201] = '\0';
  ck_assert_int_eq(testbed_valid_name(longer, why, sizeof why), 1);

  testbed_facts f;
  char name[TESTBED_MAX], err[512];
  const char *source = NULL;
  setenv("PERF_TESTBED", "h100-pool-a", 1);
  ck_assert_int_eq(testbed_detect("/nonexistent/libnvidia-ml.so.1", &f, name, sizeof name, &source, err, sizeof err),
                   0);
  ck_assert_str_eq(name, "h100-pool-a");
  ck_assert_str_eq(source, "PERF_TESTBED");
  setenv("PERF_TESTBED", "bad\nname", 1);
  ck_assert_int_eq(testbed_detect("/nonexistent/libnvidia-ml.so.1", &f, name, sizeof name, &source, err, sizeof err),
                   2);
  ck_assert_ptr_nonnull(strstr(err, "PERF_TESTBED"));
  unsetenv("PERF_TESTBED");
  /* Without NVML the GPU's part reads unknown, and why is kept: no fact of the calling process (its CUDA
   * device) stands in, so the runner and //perf/tools:testbed name the host alike. */
  ck_assert_int_eq(testbed_detect("/nonexistent/libnvidia-ml.so.1", &f, name, sizeof name, &source, err, sizeof err),
                   0);
  ck_assert_str_eq(source, "detected");
  ck_assert_ptr_nonnull(strstr(name, "unknown GPU x? NVLink unknown | "));
  ck_assert_ptr_nonnull(strstr(name, " | driver unknown"));
  ck_assert_ptr_nonnull(strstr(f.nvml_error, "cannot load /nonexistent/libnvidia-ml.so.1"));
}
END_TEST

int main(void) {
  Suite *s = suite_create("testbed");
  TCase *tc = tcase_create("testbed");
  tcase_add_test(tc, name_is_gpu_count_link_cpu_and_driver);
  tcase_add_test(tc, cpu_model_is_the_first_model_name_squeezed);
  tcase_add_test(tc, perf_testbed_names_it_and_is_validated);
  suite_add_tcase(s, tc);
  return run_suite(s);
}
