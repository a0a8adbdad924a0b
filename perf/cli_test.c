/* The benchmark binaries' command line, run as a user runs them: listing and
 * --help need no GPU, a bad flag or value exits 2 with a usage message, and
 * with no visible CUDA device a run exits 1 naming the problem (the test hides
 * every device with CUDA_VISIBLE_DEVICES=-1, so it also holds on a GPU host). */
#define _GNU_SOURCE
#include <check.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tests/support/check_run.h"

#define ELEMENTWISE "perf/elementwise_bench"
#define COPY "perf/copy_bench"
#define REDUCE "perf/reduce_bench"
#define DOT "perf/dot_bench"
#define TRANSPOSE "perf/transpose_bench"
#define MATMUL "perf/matmul_bench"

static char g_out[1 << 16], g_err[1 << 16];

static void slurp(const char *path, char *buf, size_t len) {
  FILE *f = fopen(path, "r");
  ck_assert_ptr_nonnull(f);
  size_t n = fread(buf, 1, len - 1, f);
  buf[n] = '\0';
  fclose(f);
}

/* Runs the NULL-terminated argv with no visible GPU; returns the exit status
 * and leaves stdout and stderr in g_out and g_err. */
static int run(const char *const *argv) {
  const char *tmp = getenv("TEST_TMPDIR") ? getenv("TEST_TMPDIR") : "/tmp";
  char out_path[4096], err_path[4096];
  snprintf(out_path, sizeof out_path, "%s/cli_out.%d", tmp, (int)getpid());
  snprintf(err_path, sizeof err_path, "%s/cli_err.%d", tmp, (int)getpid());
  pid_t pid = fork();
  ck_assert_int_ge(pid, 0);
  if (pid == 0) {
    int o = open(out_path, O_WRONLY | O_CREAT | O_TRUNC, 0644), e = open(err_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (o < 0 || e < 0 || dup2(o, 1) < 0 || dup2(e, 2) < 0) _exit(127);
    setenv("CUDA_VISIBLE_DEVICES", "-1", 1);
    execv(argv[0], (char *const *)argv);
    _exit(126);
  }
  int status;
  ck_assert_int_eq(waitpid(pid, &status, 0), pid);
  ck_assert_msg(WIFEXITED(status), "%s did not exit normally (signal %d)", argv[0],
                WIFSIGNALED(status) ? WTERMSIG(status) : 0);
  slurp(out_path, g_out, sizeof g_out);
  slurp(err_path, g_err, sizeof g_err);
  unlink(out_path);
  unlink(err_path);
  return WEXITSTATUS(status);
}

START_TEST(list_tests_needs_no_gpu) {
  const char *argv[] = {ELEMENTWISE, "--benchmark_list_tests", NULL};
  ck_assert_int_eq(run(argv), 0);
  ck_assert_str_eq(g_out,
                   "elementwise/add/N:1048576\n"
                   "elementwise/add/N:16777216\n"
                   "elementwise/add/N:268435456\n"
                   "elementwise/add_float4/N:1048576\n"
                   "elementwise/add_float4/N:16777216\n"
                   "elementwise/add_float4/N:268435456\n"
                   "elementwise/saxpy/N:1048576\n"
                   "elementwise/saxpy/N:16777216\n"
                   "elementwise/saxpy/N:268435456\n"
                   "elementwise/saxpy_float4/N:1048576\n"
                   "elementwise/saxpy_float4/N:16777216\n"
                   "elementwise/saxpy_float4/N:268435456\n"
                   "elementwise/cublas_saxpy/N:1048576\n"
                   "elementwise/cublas_saxpy/N:16777216\n"
                   "elementwise/cublas_saxpy/N:268435456\n");
  const char *copy[] = {COPY, "--benchmark_list_tests=true", "--benchmark_filter=N:268435456$", NULL};
  ck_assert_int_eq(run(copy), 0);
  ck_assert_str_eq(g_out, "copy/copy_float4/N:268435456\ncopy/memcpy/N:268435456\n");
  const char *neg[] = {COPY, "--benchmark_list_tests", "--benchmark_filter=-(memcpy|N:1048576)", NULL};
  ck_assert_int_eq(run(neg), 0);
  ck_assert_str_eq(g_out, "copy/copy_float4/N:16777216\ncopy/copy_float4/N:268435456\n");
}
END_TEST

/* Lists `bin` and expects family/variant/params for every variant (in this
 * order, the ladder then the reference) and every params string. */
static void expect_listing(const char *bin, const char *family, const char *const *variants,
                           const char *const *params) {
  static char want[1 << 16];
  size_t k = 0;
  for (const char *const *v = variants; *v; v++)
    for (const char *const *p = params; *p; p++)
      k += (size_t)snprintf(want + k, sizeof want - k, "%s/%s/%s\n", family, *v, *p);
  const char *argv[] = {bin, "--benchmark_list_tests", NULL};
  ck_assert_int_eq(run(argv), 0);
  ck_assert_str_eq(g_out, want);
}

START_TEST(family_listings) {
  static const char *const reduce[] = {"v0_interleaved", "v1_strided_index", "v2_sequential",
                                       "v3_first_add_on_load", "v4_unroll_last_warp", "v5_full_unroll",
                                       "v6_multi_add", "v7_shuffle_vec4", "cub", NULL};
  static const char *const dot[] = {"tree_host_finish", "tree_atomic", "shuffle_vec4", "cublas", NULL};
  static const char *const vectors[] = {"N:1048576", "N:16777216", "N:268435456", NULL};
  static const char *const transpose[] = {"naive_row",  "naive_col",   "unroll4_row", "unroll4_col",
                                          "smem_tiled", "smem_padded", "tile64_vec",  "cublas", NULL};
  static const char *const shapes[] = {"nx:1024/ny:1024", "nx:8192/ny:8192", "nx:8191/ny:4099", NULL};
  /* The TF32 variant carries "tf32" in its name: never mistaken for fp32. */
  static const char *const matmul[] = {"naive", "tiled16", "tiled32", "regblock", "tf32_wmma", "cublas", NULL};
  static const char *const cubes[] = {"M:1024/N:1024/K:1024", "M:2048/N:2048/K:2048", "M:4096/N:4096/K:4096", NULL};
  expect_listing(REDUCE, "reduce", reduce, vectors);
  expect_listing(DOT, "dot", dot, vectors);
  expect_listing(TRANSPOSE, "transpose", transpose, shapes);
  expect_listing(MATMUL, "matmul", matmul, cubes);
}
END_TEST

START_TEST(help_exits_zero) {
  const char *argv[] = {ELEMENTWISE, "--help", NULL};
  ck_assert_int_eq(run(argv), 0);
  ck_assert_ptr_nonnull(strstr(g_out, "--benchmark_filter=<regex>"));
  ck_assert_ptr_nonnull(strstr(g_out, "--max_noise=<percent>"));
}
END_TEST

/* A usage error: exit 2, and stderr says what was wrong and what is accepted. */
static void expect_usage_error(const char *flag, const char *needle) {
  const char *argv[] = {ELEMENTWISE, flag, NULL};
  ck_assert_msg(run(argv) == 2, "%s: expected exit 2", flag);
  ck_assert_msg(strstr(g_err, needle) != NULL, "%s: stderr '%s' lacks '%s'", flag, g_err, needle);
  ck_assert_msg(strstr(g_err, "usage:") != NULL, "%s: no usage line", flag);
  ck_assert_str_eq(g_out, "");
}

START_TEST(bad_flags_exit_two) {
  expect_usage_error("--benchmark_repetitons=3", "unknown flag '--benchmark_repetitons'");
  expect_usage_error("--benchmark_repetitions=zero", "expected an integer from 1");
  expect_usage_error("--benchmark_format=yaml", "expected console, json or csv");
  expect_usage_error("--benchmark_filter=(", "not a valid POSIX extended regular expression");
  expect_usage_error("--benchmark_context=json_schema_version=2", "a key the runner writes itself");
  expect_usage_error("--max_noise=-1", "percentage");
}
END_TEST

START_TEST(no_gpu_is_a_clear_error) {
  const char *argv[] = {ELEMENTWISE, "--benchmark_filter=add_float4/N:1048576$", "--benchmark_format=json", NULL};
  ck_assert_int_eq(run(argv), 1);
  ck_assert_ptr_nonnull(strstr(g_err, "no usable CUDA device"));
  ck_assert_str_eq(g_out, "");
}
END_TEST

START_TEST(no_gpu_is_a_clear_error_in_every_family) {
  const char *const bins[] = {REDUCE, DOT, TRANSPOSE, MATMUL};
  const char *const small[] = {"--benchmark_filter=N:1048576$", "--benchmark_filter=N:1048576$",
                               "--benchmark_filter=nx:1024/", "--benchmark_filter=M:1024/"};
  for (int b = 0; b < 4; b++) {
    const char *argv[] = {bins[b], small[b], NULL};
    ck_assert_msg(run(argv) == 1, "%s: expected exit 1", bins[b]);
    ck_assert_msg(strstr(g_err, "no usable CUDA device") != NULL, "%s: stderr '%s'", bins[b], g_err);
    ck_assert_str_eq(g_out, "");
  }
}
END_TEST

START_TEST(filter_matching_nothing_fails) {
  const char *argv[] = {COPY, "--benchmark_filter=nothing_is_called_this", NULL};
  ck_assert_int_eq(run(argv), 1);
  ck_assert_ptr_nonnull(strstr(g_err, "no benchmark matches"));
}
END_TEST

int main(void) {
  Suite *s = suite_create("cli");
  TCase *tc = tcase_create("cli");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, list_tests_needs_no_gpu);
  tcase_add_test(tc, help_exits_zero);
  tcase_add_test(tc, bad_flags_exit_two);
  tcase_add_test(tc, no_gpu_is_a_clear_error);
  tcase_add_test(tc, family_listings);
  tcase_add_test(tc, no_gpu_is_a_clear_error_in_every_family);
  tcase_add_test(tc, filter_matching_nothing_fails);
  suite_add_tcase(s, tc);
  return run_suite(s);
}
