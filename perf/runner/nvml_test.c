/* CPU tests of the NVML loader: without the library (or with a bogus one) it
 * must fail with a message, never crash, and every accessor must tolerate the
 * missing handle. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "perf/runner/nvml.h"
#include "tests/support/check_run.h"

START_TEST(missing_library_is_a_message) {
  char err[256] = "";
  gpu_nvml *g = nvml_open("/nonexistent/libnvidia-ml.so.1", "0000:00:00.0", "GPU-x", err, sizeof err);
  ck_assert_ptr_null(g);
  ck_assert_ptr_nonnull(strstr(err, "cannot load /nonexistent/libnvidia-ml.so.1"));
}
END_TEST

START_TEST(library_without_nvml_symbols_is_a_message) {
  /* libc loads fine but exports no NVML function. */
  char err[256] = "";
  gpu_nvml *g = nvml_open("libc.so.6", "0000:00:00.0", "GPU-x", err, sizeof err);
  ck_assert_ptr_null(g);
  ck_assert_ptr_nonnull(strstr(err, "lacks a needed NVML function"));
}
END_TEST

START_TEST(null_handle_is_tolerated) {
  nvml_reading r;
  unsigned sm = 1, mem = 1;
  char v[16] = "x";
  ck_assert_int_eq(nvml_read(NULL, &r), -1);
  ck_assert_int_eq(nvml_max_clocks(NULL, &sm, &mem), -1);
  ck_assert_int_eq(nvml_ecc_enabled(NULL), -1);
  nvml_driver_version(NULL, v, sizeof v);
  ck_assert_str_eq(v, "");
  nvml_close(NULL);
}
END_TEST

/* The default library: absent on a CPU machine, present on a GPU host. Either
 * way the call returns; a handle, if any, must read plausible values. */
START_TEST(default_library_either_works_or_explains) {
  char err[256] = "";
  gpu_nvml *g = nvml_open(NULL, "0000:00:00.0", "GPU-00000000-0000-0000-0000-000000000000", err, sizeof err);
  if (!g) {
    ck_assert_msg(strlen(err) > 0, "no handle and no reason");
  } else {
    nvml_close(g); /* a device at bus 0000:00:00.0 would be unusual, but not wrong */
  }
}
END_TEST

int main(void) {
  Suite *s = suite_create("nvml");
  TCase *tc = tcase_create("nvml");
  tcase_add_test(tc, missing_library_is_a_message);
  tcase_add_test(tc, library_without_nvml_symbols_is_a_message);
  tcase_add_test(tc, null_handle_is_tolerated);
  tcase_add_test(tc, default_library_either_works_or_explains);
  suite_add_tcase(s, tc);
  return run_suite(s);
}
