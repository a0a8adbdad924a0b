/* //perf/tools:testbed (what ci/gate.sh asks) and the runner (its run JSON's context.testbed) name the
 * host through one function, testbed_of_host: this runs the tool and calls the function in the same
 * environment, and wants the same line, with NVML readable (a stand-in library), without it, and with
 * PERF_TESTBED set, valid or not. Usage: testbed_tool_test TESTBED_BIN FAKE_NVML_SO */
#define _GNU_SOURCE
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "perf/runner/testbed.h"
#include "tests/support/check_run.h"

static const char *tool, *fake_nvml;

/* The tool's first line of output and its exit status, in this process's environment. */
static int run_tool(char *line, size_t len) {
  char cmd[4096];
  snprintf(cmd, sizeof cmd, "'%s' 2>/dev/null", tool);
  FILE *p = popen(cmd, "r");
  ck_assert_ptr_nonnull(p);
  line[0] = '\0';
  if (fgets(line, (int)len, p)) line[strcspn(line, "\n")] = '\0';
  int st = pclose(p);
  return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* The tool and testbed_of_host agree in the current environment; returns the line. */
static void expect_same(char *name, size_t len) {
  testbed_facts f;
  char err[512] = "", line[TESTBED_MAX + 16];
  const char *source = NULL;
  int rc = testbed_of_host(&f, name, len, &source, err, sizeof err);
  ck_assert_int_eq(run_tool(line, sizeof line), rc);
  if (rc == 0) ck_assert_str_eq(line, name);
}

START_TEST(with_nvml_both_name_the_host_from_it) {
  char name[TESTBED_MAX];
  unsetenv("PERF_TESTBED");
  setenv("BENCH_NVML_LIBRARY", fake_nvml, 1);
  expect_same(name, sizeof name);
  ck_assert_msg(strncmp(name, "Fake GPU 80GB x4 NVLink | ", 26) == 0, "%s", name);
  ck_assert_msg(strstr(name, " | driver 999.99.99") != NULL, "%s", name);
}
END_TEST

START_TEST(without_nvml_both_read_the_gpu_unknown) {
  char name[TESTBED_MAX];
  unsetenv("PERF_TESTBED");
  setenv("BENCH_NVML_LIBRARY", "/nonexistent/libnvidia-ml.so.1", 1);
  expect_same(name, sizeof name);
  ck_assert_msg(strncmp(name, "unknown GPU x? NVLink unknown | ", 32) == 0, "%s", name);
}
END_TEST

START_TEST(perf_testbed_names_it_for_both) {
  char name[TESTBED_MAX];
  setenv("BENCH_NVML_LIBRARY", fake_nvml, 1);
  setenv("PERF_TESTBED", "h100-pool-a", 1);
  expect_same(name, sizeof name);
  ck_assert_str_eq(name, "h100-pool-a");
  setenv("PERF_TESTBED", "pool,a", 1); /* refused by both: exit 2 */
  expect_same(name, sizeof name);
  unsetenv("PERF_TESTBED");
}
END_TEST

int main(int argc, char **argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: %s TESTBED_BIN FAKE_NVML_SO\n", argv[0]);
    return 2;
  }
  tool = argv[1];
  static char so[4096];
  /* dlopen needs a path with a slash, or it searches the library path. */
  snprintf(so, sizeof so, "%s%s", argv[2][0] == '/' ? "" : "./", argv[2]);
  fake_nvml = so;
  Suite *s = suite_create("testbed_tool");
  TCase *tc = tcase_create("testbed_tool");
  tcase_add_test(tc, with_nvml_both_name_the_host_from_it);
  tcase_add_test(tc, without_nvml_both_read_the_gpu_unknown);
  tcase_add_test(tc, perf_testbed_names_it_for_both);
  suite_add_tcase(s, tc);
  return run_suite(s);
}
