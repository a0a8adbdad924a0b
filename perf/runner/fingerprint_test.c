/* CPU tests of the fingerprint file (perf/runner/fingerprint): the exact work lines, their order,
 * when a benchmark is complete, the file's shape, and the atomic write and its failures. */
#define _POSIX_C_SOURCE 200809L
#include <check.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "perf/runner/fingerprint.h"
#include "tests/support/check_run.h"

static const fp_kernel kKernel = {
    .name = "_Z3addPfS_i",
    .sass_known = 1,
    .sass = 0x00c0ffee12345678ull,
    .grid = {4096, 2, 1},
    .block = {256, 1, 1},
    .cluster = {1, 1, 1},
    .smem_static = 1024,
    .smem_dynamic = 48,
    .regs = 32,
    .local = 8,
};

START_TEST(work_lines_are_exact) {
  fp_ops ops = {0};
  fp_kernel unknown = kKernel;
  unknown.sass_known = 0;
  unknown.cluster[0] = 2;
  ck_assert_int_eq(fp_add_kernel(&ops, 10, 1, &kKernel), 0);
  ck_assert_int_eq(fp_add_kernel(&ops, 11, 2, &unknown), 0);
  ck_assert_int_eq(fp_add_memset(&ops, 12, 3, 1ull << 33, 0xAB, 1), 0);
  ck_assert_int_eq(fp_add_memcpy(&ops, 13, 4, 8, 4096), 0);
  ck_assert_uint_eq(ops.n, 4);
  ck_assert_str_eq(ops.op[0].line,
                   "kernel _Z3addPfS_i sass=00c0ffee12345678 grid=4096,2,1 block=256,1,1 "
                   "cluster=1,1,1 smem=1024+48 regs=32 local=8");
  ck_assert_int_eq(ops.op[0].unknown, 0);
  ck_assert_str_eq(ops.op[1].line,
                   "kernel _Z3addPfS_i sass=unknown grid=4096,2,1 block=256,1,1 "
                   "cluster=2,1,1 smem=1024+48 regs=32 local=8");
  ck_assert_int_eq(ops.op[1].unknown, 1);
  ck_assert_str_eq(ops.op[2].line, "memset bytes=8589934592 value=171 kind=1");
  ck_assert_str_eq(ops.op[3].line, "memcpy kind=8 bytes=4096");
  fp_ops_clear(&ops);
  ck_assert_uint_eq(ops.n, 0);
}
END_TEST

START_TEST(sorted_by_start_then_correlation) {
  fp_ops ops = {0};
  /* Completion order: as CUPTI hands them over. */
  fp_add_memcpy(&ops, 300, 9, 1, 3);
  fp_add_memcpy(&ops, 100, 7, 1, 1);
  fp_add_memcpy(&ops, 200, 8, 1, 22);
  fp_add_memcpy(&ops, 200, 5, 1, 21);
  fp_ops_sort(&ops);
  const char *want[] = {"memcpy kind=1 bytes=1", "memcpy kind=1 bytes=21", "memcpy kind=1 bytes=22",
                        "memcpy kind=1 bytes=3"};
  for (int i = 0; i < 4; i++) ck_assert_str_eq(ops.op[i].line, want[i]);
  fp_ops_clear(&ops);
}
END_TEST

static char g_dir[512];

static void make_dir(void) {
  const char *tmp = getenv("TEST_TMPDIR") ? getenv("TEST_TMPDIR") : "/tmp";
  snprintf(g_dir, sizeof g_dir, "%s/fp_test.XXXXXX", tmp);
  ck_assert_ptr_nonnull(mkdtemp(g_dir));
}

static char *slurp(const char *path) {
  FILE *f = fopen(path, "r");
  ck_assert_ptr_nonnull(f);
  static char buf[1 << 16];
  size_t n = fread(buf, 1, sizeof buf - 1, f);
  buf[n] = '\0';
  fclose(f);
  return buf;
}

static int entries(const char *dir) {
  DIR *d = opendir(dir);
  ck_assert_ptr_nonnull(d);
  int n = 0;
  for (struct dirent *e; (e = readdir(d));) n += e->d_name[0] != '.';
  closedir(d);
  return n;
}

/* Two benchmarks: one complete, one with an unknown kernel; and one with no operation at all. */
static json_t *sample_doc(void) {
  json_t *doc = fp_doc_new("0123456789abcdef", "NVIDIA H100 80GB HBM3");
  ck_assert_ptr_nonnull(doc);
  fp_ops ops = {0};
  fp_add_memset(&ops, 2, 2, 64, 0, 1);
  fp_add_kernel(&ops, 1, 1, &kKernel);
  fp_ops_sort(&ops);
  ck_assert_int_eq(fp_doc_add(doc, "elementwise/add/N:1024", 0, &ops), 0);
  fp_ops_clear(&ops);
  fp_kernel unknown = kKernel;
  unknown.sass_known = 0;
  fp_add_kernel(&ops, 1, 1, &unknown);
  ck_assert_int_eq(fp_doc_add(doc, "elementwise/add/N:2048", 1, &ops), 0);
  fp_ops_clear(&ops);
  ck_assert_int_eq(fp_doc_add(doc, "host/only/N:1", 1, &ops), 0);
  return doc;
}

START_TEST(file_format) {
  make_dir();
  char path[600], err[256] = "";
  snprintf(path, sizeof path, "%s/fp.json", g_dir);
  json_t *doc = sample_doc();
  ck_assert_int_eq(fp_doc_write(doc, path, err, sizeof err), 0);
  json_decref(doc);
  const char *text = slurp(path);
  /* The keys in the documented order. */
  const char *keys[] = {"\"fingerprint_version\": 1",
                        "\"runner\": \"0123456789abcdef\"",
                        "\"gpu\": \"NVIDIA H100 80GB HBM3\"",
                        "\"benchmarks\"",
                        "\"name\": \"elementwise/add/N:1024\"",
                        "\"host_round_trip\": false",
                        "\"complete\": true",
                        "\"work\""};
  const char *at = text;
  for (size_t i = 0; i < sizeof keys / sizeof *keys; i++) {
    const char *p = strstr(at, keys[i]);
    ck_assert_msg(p != NULL, "'%s' missing or out of order in %s", keys[i], text);
    at = p;
  }
  json_error_t je;
  json_t *back = json_load_file(path, 0, &je);
  ck_assert_msg(back != NULL, "%s", je.text);
  ck_assert_int_eq(json_integer_value(json_object_get(back, "fingerprint_version")), 1);
  json_t *list = json_object_get(back, "benchmarks");
  ck_assert_uint_eq(json_array_size(list), 3);
  json_t *b0 = json_array_get(list, 0), *b1 = json_array_get(list, 1), *b2 = json_array_get(list, 2);
  ck_assert_uint_eq(json_object_size(b0), 4);
  ck_assert(json_is_true(json_object_get(b0, "complete")));
  json_t *w = json_object_get(b0, "work");
  ck_assert_uint_eq(json_array_size(w), 2);
  ck_assert_str_eq(json_string_value(json_array_get(w, 0)),
                   "kernel _Z3addPfS_i sass=00c0ffee12345678 grid=4096,2,1 block=256,1,1 cluster=1,1,1 smem=1024+48 "
                   "regs=32 local=8");
  ck_assert_str_eq(json_string_value(json_array_get(w, 1)), "memset bytes=64 value=0 kind=1");
  /* An unknown kernel, or no operation at all: not complete. */
  ck_assert(json_is_false(json_object_get(b1, "complete")));
  ck_assert(json_is_true(json_object_get(b1, "host_round_trip")));
  ck_assert(json_is_false(json_object_get(b2, "complete")));
  ck_assert_uint_eq(json_array_size(json_object_get(b2, "work")), 0);
  json_decref(back);
  ck_assert_int_eq(entries(g_dir), 1); /* no temporary file left */
}
END_TEST

START_TEST(write_is_atomic_and_failures_are_reported) {
  make_dir();
  char path[600], err[256] = "";
  json_t *doc = sample_doc();
  /* Replaces an existing file whole. */
  snprintf(path, sizeof path, "%s/fp.json", g_dir);
  FILE *f = fopen(path, "w");
  fputs("old", f);
  fclose(f);
  ck_assert_int_eq(fp_doc_write(doc, path, err, sizeof err), 0);
  ck_assert_ptr_nonnull(strstr(slurp(path), "\"fingerprint_version\""));
  /* A directory that does not exist: an error naming the file. */
  snprintf(path, sizeof path, "%s/missing/fp.json", g_dir);
  ck_assert_int_eq(fp_doc_write(doc, path, err, sizeof err), -1);
  ck_assert_msg(strstr(err, "missing/fp.json") && strstr(err, "No such file"), "%s", err);
  /* The rename fails (the target is a non-empty directory): reported, nothing left behind. */
  snprintf(path, sizeof path, "%s/dir", g_dir);
  ck_assert_int_eq(mkdir(path, 0755), 0);
  char inside[700];
  snprintf(inside, sizeof inside, "%s/keep", path);
  fclose(fopen(inside, "w"));
  err[0] = '\0';
  ck_assert_int_eq(fp_doc_write(doc, path, err, sizeof err), -1);
  ck_assert_msg(strstr(err, "cannot rename"), "%s", err);
  ck_assert_int_eq(entries(g_dir), 2); /* fp.json and dir: no temporary file */
  ck_assert_int_eq(entries(path), 1);
  json_decref(doc);
}
END_TEST

int main(void) {
  Suite *s = suite_create("fingerprint");
  TCase *tc = tcase_create("fingerprint");
  tcase_add_test(tc, work_lines_are_exact);
  tcase_add_test(tc, sorted_by_start_then_correlation);
  tcase_add_test(tc, file_format);
  tcase_add_test(tc, write_is_atomic_and_failures_are_reported);
  suite_add_tcase(s, tc);
  return run_suite(s);
}
