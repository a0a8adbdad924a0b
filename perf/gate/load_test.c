/* The gate's JSON loads are buffered: a 2.3 MB baseline is read in a few read() calls, not one
 * per byte (jansson's json_loadfd: 2.3 M system calls, over a second of kernel time per load).
 * Linked with -Wl,--wrap=read, so every read() of the gate's code and of jansson is counted. */
#define _GNU_SOURCE
#include <check.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "perf/gate/figures.h"
#include "tests/support/check_run.h"

static long reads;
ssize_t __real_read(int fd, void *buf, size_t n);
ssize_t __wrap_read(int fd, void *buf, size_t n) {
  reads++;
  return __real_read(fd, buf, n);
}

static const char *kBaseline = "baselines/nvidia-h100-80gb-hbm3.json";

START_TEST(the_h100_baseline_loads_in_few_reads) {
  struct stat st;
  ck_assert_int_eq(stat(kBaseline, &st), 0);
  ck_assert_int_gt(st.st_size, 500000);
  gate_figures f;
  char err[1024];
  reads = 0;
  ck_assert_msg(load_baseline(kBaseline, &f, err, sizeof err) == 0, "%s", err);
  ck_assert_msg(reads < 16, "%ld read() calls to load %lld bytes: the load is not buffered", reads,
                (long long)st.st_size);
  ck_assert_uint_gt(f.n, 100);
  free_figures(&f);
}
END_TEST

/* A file whose size fstat does not tell (a pipe) is read whole, however large. */
START_TEST(a_large_json_from_a_pipe_loads_whole) {
  char path[512];
  const char *tmp = getenv("TEST_TMPDIR");
  snprintf(path, sizeof path, "%s/big.json", tmp ? tmp : "/tmp");
  unlink(path);
  ck_assert_int_eq(mkfifo(path, 0600), 0);
  enum { N = 400000 }; /* about 5 MB */
  pid_t pid = fork();
  ck_assert_int_ge(pid, 0);
  if (pid == 0) {
    FILE *w = fopen(path, "w");
    if (!w) _exit(1);
    fputs("{\"x\": [", w);
    for (int i = 0; i < N; i++) fprintf(w, "%s%d.125", i ? ", " : "", i);
    fputs("]}\n", w);
    _exit(fclose(w) != 0);
  }
  char err[1024];
  reads = 0;
  json_t *root = load_json_object(path, err, sizeof err);
  int status;
  ck_assert_int_eq(waitpid(pid, &status, 0), pid);
  ck_assert_msg(root != NULL, "%s", err);
  ck_assert_msg(reads < N / 100, "%ld read() calls for %d numbers: the load is not buffered", reads, N);
  json_t *x = json_object_get(root, "x");
  ck_assert_uint_eq(json_array_size(x), N);
  ck_assert_double_eq(json_real_value(json_array_get(x, N - 1)), N - 1 + 0.125);
  json_decref(root);
  unlink(path);
}
END_TEST

/* A cut file is still named as not valid JSON. */
START_TEST(a_cut_file_is_named) {
  char path[512], err[1024];
  const char *tmp = getenv("TEST_TMPDIR");
  snprintf(path, sizeof path, "%s/cut.json", tmp ? tmp : "/tmp");
  FILE *w = fopen(path, "w");
  ck_assert_ptr_nonnull(w);
  fputs("{\"x\": [1, 2,", w);
  ck_assert_int_eq(fclose(w), 0);
  ck_assert_ptr_null(load_json_object(path, err, sizeof err));
  ck_assert_msg(strstr(err, "cut.json: not valid JSON") != NULL, "%s", err);
}
END_TEST

int main(void) {
  Suite *s = suite_create("load");
  TCase *tc = tcase_create("load");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, the_h100_baseline_loads_in_few_reads);
  tcase_add_test(tc, a_large_json_from_a_pipe_loads_whole);
  tcase_add_test(tc, a_cut_file_is_named);
  suite_add_tcase(s, tc);
  return run_suite(s);
}
