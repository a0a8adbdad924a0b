/* CPU tests of how CUPTI is found (perf/runner/cupti_trace): the paths tried and their order, and
 * a failure that names every path tried and why, without a GPU and without a crash. */
#include <check.h>
#include <string.h>

#include "perf/runner/cupti_trace.h"
#include "tests/support/check_run.h"

START_TEST(candidates_in_order) {
  char p[CUPTI_TRACE_MAX_CANDIDATES][CUPTI_TRACE_PATH_LEN];
  size_t n = cupti_trace_candidates("/opt/x/libcupti.so.13", "/opt/cuda-13.0", p);
  const char *want[] = {"/opt/x/libcupti.so.13",
                        "libcupti.so.13",
                        "libcupti.so",
                        "/opt/cuda-13.0/lib64/libcupti.so",
                        "/opt/cuda-13.0/targets/x86_64-linux/lib/libcupti.so",
                        "/opt/cuda-13.0/extras/CUPTI/lib64/libcupti.so",
                        "/usr/local/cuda/lib64/libcupti.so",
                        "/usr/local/cuda/targets/x86_64-linux/lib/libcupti.so",
                        "/usr/local/cuda/extras/CUPTI/lib64/libcupti.so"};
  ck_assert_uint_eq(n, sizeof want / sizeof *want);
  for (size_t i = 0; i < n; i++) ck_assert_str_eq(p[i], want[i]);
  /* Unset (or empty) variables: no CUPTI_LIBRARY entry, and /usr/local/cuda once. */
  n = cupti_trace_candidates(NULL, "", p);
  ck_assert_uint_eq(n, 5);
  ck_assert_str_eq(p[0], "libcupti.so.13");
  ck_assert_str_eq(p[2], "/usr/local/cuda/lib64/libcupti.so");
  ck_assert_str_eq(p[4], "/usr/local/cuda/extras/CUPTI/lib64/libcupti.so");
}
END_TEST

START_TEST(failure_names_every_path_tried) {
  /* A missing file, and a library that loads but is not CUPTI. */
  const char *paths[] = {"/nonexistent/libcupti.so", "libc.so.6"};
  char err[1024] = "";
  ck_assert_int_eq(cupti_trace_open_from(paths, 2, err, sizeof err), -1);
  ck_assert_msg(strstr(err, "cannot load CUPTI; tried /nonexistent/libcupti.so (") != NULL, "%s", err);
  ck_assert_msg(strstr(err, "; libc.so.6 (lacks a needed CUPTI function)") != NULL, "%s", err);
  ck_assert_msg(strstr(err, "CUPTI_LIBRARY") != NULL, "%s", err);
  /* A short buffer is cut, not overrun. */
  char small[16];
  ck_assert_int_eq(cupti_trace_open_from(paths, 2, small, sizeof small), -1);
  ck_assert_uint_eq(strlen(small), sizeof small - 1);
}
END_TEST

int main(void) {
  Suite *s = suite_create("cupti_trace");
  TCase *tc = tcase_create("cupti_trace");
  tcase_add_test(tc, candidates_in_order);
  tcase_add_test(tc, failure_names_every_path_tried);
  suite_add_tcase(s, tc);
  return run_suite(s);
}
