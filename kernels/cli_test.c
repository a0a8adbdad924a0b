/* The benchmark binaries' command line, run as a user runs them, for every family of
 * kernels/families.bzl (the BUILD rule passes FAMILY=BINARY for each): listing and --help need no
 * GPU, a filter selects what a POSIX extended regular expression search selects, a bad flag or
 * value exits 2 with a usage message, and with no visible CUDA device a run exits 2 (bad input, not a failed
 * benchmark) naming the problem and the fix (the test hides every device with CUDA_VISIBLE_DEVICES=-1, so it also holds on a GPU
 * host). The names expected come from each binary's own listing, checked for their shape
 * (family/variant/param:value..., every variant at every size), so that a new variant or family
 * needs no edit here. */
#define _GNU_SOURCE
#include <check.h>
#include <fcntl.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tests/support/check_run.h"

enum { MAX_FAMILIES = 64, MAX_NAMES = 4096, MAX_PARTS = 256, PART_LEN = 256 };

/* From the command line: the family (the first part of its benchmarks' names) and its binary. */
static struct { const char *name, *bin; } g_family[MAX_FAMILIES];
static int g_nfamilies;

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

/* A family's listing: its names in order, and the variants and the parameter strings
 * ("N:1048576", "nx:1024/ny:1024") in order of first appearance. */
typedef struct {
  char text[1 << 16];
  char *name[MAX_NAMES];
  size_t n;
  char variant[MAX_PARTS][PART_LEN], params[MAX_PARTS][PART_LEN];
  size_t nvariants, nparams;
} listing;

static size_t index_of(char (*parts)[PART_LEN], size_t *n, const char *part) {
  for (size_t i = 0; i < *n; i++)
    if (strcmp(parts[i], part) == 0) return i;
  ck_assert_uint_lt(*n, MAX_PARTS);
  snprintf(parts[*n], PART_LEN, "%s", part);
  return (*n)++;
}

/* Runs `bin --benchmark_list_tests [filter]`; expects exit 0 and a newline-terminated listing,
 * which it splits into lines. */
static void list(const char *bin, const char *filter, listing *l) {
  const char *argv[] = {bin, "--benchmark_list_tests", filter, NULL};
  ck_assert_msg(run(argv) == 0, "%s --benchmark_list_tests %s: exit status not 0; stderr: %s", bin,
                filter ? filter : "", g_err);
  snprintf(l->text, sizeof l->text, "%s", g_out);
  l->n = l->nvariants = l->nparams = 0;
  size_t len = strlen(l->text);
  ck_assert_msg(len == 0 || l->text[len - 1] == '\n', "%s: the listing does not end with a newline", bin);
  for (char *line = l->text; *line; line = strchr(line, '\0') + 1) {
    ck_assert_uint_lt(l->n, MAX_NAMES);
    *strchr(line, '\n') = '\0';
    l->name[l->n++] = line;
  }
}

/* The whole listing of a family, with its variants and parameter strings: every name is
 * family/variant/params, and the names are every variant (in the order of its first name) at
 * every parameter string (likewise), variant by variant, as the benchmarks' main loops them. */
static void list_family(int f, listing *l) {
  const char *family = g_family[f].name, *bin = g_family[f].bin;
  list(bin, NULL, l);
  ck_assert_msg(l->n > 0, "%s lists no benchmark", bin);
  size_t flen = strlen(family);
  for (size_t i = 0; i < l->n; i++) {
    const char *name = l->name[i];
    ck_assert_msg(strncmp(name, family, flen) == 0 && name[flen] == '/', "%s lists '%s', not a %s benchmark", bin, name,
                  family);
    const char *variant = name + flen + 1, *slash = strchr(variant, '/');
    ck_assert_msg(slash && slash > variant && slash[1], "%s lists '%s', not family/variant/params", bin, name);
    char v[PART_LEN];
    snprintf(v, sizeof v, "%.*s", (int)(slash - variant), variant);
    index_of(l->variant, &l->nvariants, v);
    index_of(l->params, &l->nparams, slash + 1);
  }
  ck_assert_msg(l->n == l->nvariants * l->nparams, "%s lists %zu names for %zu variants at %zu sizes", bin, l->n,
                l->nvariants, l->nparams);
  for (size_t v = 0, i = 0; v < l->nvariants; v++)
    for (size_t p = 0; p < l->nparams; p++, i++) {
      char want[3 * PART_LEN];
      snprintf(want, sizeof want, "%s/%s/%s", family, l->variant[v], l->params[p]);
      ck_assert_msg(strcmp(l->name[i], want) == 0, "%s: name %zu is '%s', expected '%s'", bin, i, l->name[i], want);
    }
}

/* The family's full listing, taken once (the suite runs in one process: most binaries take a
 * good part of a second to start, for the cuBLAS they link). */
static const listing *full_listing(int f) {
  static listing cache[MAX_FAMILIES];
  static int taken[MAX_FAMILIES];
  if (!taken[f]) {
    list_family(f, &cache[f]);
    taken[f] = 1;
  }
  return &cache[f];
}

/* part with the characters that a regular expression gives a meaning to escaped. */
static void escape(const char *part, char *out, size_t len) {
  size_t k = 0;
  for (; *part && k + 2 < len; part++) {
    if (strchr(".[]{}()*+?^$|\\", *part)) out[k++] = '\\';
    out[k++] = *part;
  }
  out[k] = '\0';
}

/* `--benchmark_filter=<filter>` lists exactly the names of the full listing that a POSIX extended
 * regular expression search for the pattern finds (none of them with a leading '-'), in order;
 * when none is left it exits 1 saying so. */
static void expect_filtered(int f, const listing *all, const char *filter) {
  const char *bin = g_family[f].bin;
  int negate = filter[0] == '-';
  regex_t re;
  ck_assert_int_eq(regcomp(&re, filter + negate, REG_EXTENDED | REG_NOSUB), 0);
  static char want[1 << 16];
  size_t k = 0;
  for (size_t i = 0; i < all->n; i++)
    if ((regexec(&re, all->name[i], 0, NULL, 0) == 0) != negate)
      k += (size_t)snprintf(want + k, sizeof want - k, "%s\n", all->name[i]);
  regfree(&re);
  char flag[4 * PART_LEN];
  snprintf(flag, sizeof flag, "--benchmark_filter=%s", filter);
  if (k == 0) {
    const char *argv[] = {bin, "--benchmark_list_tests", flag, NULL};
    ck_assert_msg(run(argv) == 2, "%s %s: expected exit 2 (a bad flag), nothing matches", bin, flag);
    ck_assert_ptr_nonnull(strstr(g_err, "no benchmark matches"));
    return;
  }
  static listing got;
  list(bin, flag, &got);
  ck_assert_str_eq(g_out, want);
}

START_TEST(every_family_lists_without_a_gpu) {
  ck_assert_int_gt(g_nfamilies, 0);
  for (int f = 0; f < g_nfamilies; f++) full_listing(f);
  /* --benchmark_list_tests=true is the same flag. */
  const char *argv[] = {g_family[0].bin, "--benchmark_list_tests=true", NULL};
  ck_assert_int_eq(run(argv), 0);
  const listing *l = full_listing(0);
  static char want[1 << 16];
  size_t k = 0;
  for (size_t i = 0; i < l->n; i++) k += (size_t)snprintf(want + k, sizeof want - k, "%s\n", l->name[i]);
  ck_assert_str_eq(g_out, want);
}
END_TEST

/* In every family: the largest size only, and neither the last variant nor the smallest size. */
START_TEST(filters_select_by_regex) {
  for (int f = 0; f < g_nfamilies; f++) {
    const listing *l = full_listing(f);
    char last[2 * PART_LEN], variant[2 * PART_LEN], first[2 * PART_LEN], filter[8 * PART_LEN];
    escape(l->params[l->nparams - 1], last, sizeof last);
    escape(l->variant[l->nvariants - 1], variant, sizeof variant);
    escape(l->params[0], first, sizeof first);
    snprintf(filter, sizeof filter, "/%s$", last);
    expect_filtered(f, l, filter);
    snprintf(filter, sizeof filter, "-(/%s/|/%s$)", variant, first);
    expect_filtered(f, l, filter);
  }
}
END_TEST

START_TEST(help_exits_zero) {
  const char *argv[] = {g_family[0].bin, "--help", NULL};
  ck_assert_int_eq(run(argv), 0);
  ck_assert_ptr_nonnull(strstr(g_out, "--benchmark_filter=<regex>"));
  ck_assert_ptr_nonnull(strstr(g_out, "--max_noise=<percent>"));
}
END_TEST

/* A usage error: exit 2, and stderr says what was wrong and what is accepted. */
static void expect_usage_error(const char *flag, const char *needle) {
  const char *argv[] = {g_family[0].bin, flag, NULL};
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

/* A run of each family's first benchmark (the first variant at the first size). */
START_TEST(no_gpu_is_a_clear_error_in_every_family) {
  for (int f = 0; f < g_nfamilies; f++) {
    char name[4 * PART_LEN], filter[4 * PART_LEN + 32];
    escape(full_listing(f)->name[0], name, sizeof name);
    snprintf(filter, sizeof filter, "--benchmark_filter=^%s$", name);
    const char *argv[] = {g_family[f].bin, filter, "--benchmark_format=json", NULL};
    ck_assert_msg(run(argv) == 2, "%s: expected exit 2", g_family[f].bin);
    ck_assert_msg(strstr(g_err, "no usable CUDA device") != NULL, "%s: stderr '%s'", g_family[f].bin, g_err);
    ck_assert_msg(strstr(g_err, "CUDA_VISIBLE_DEVICES") && strstr(g_err, "nvidia-smi") && strstr(g_err, "--config=cpu"),
                  "%s: the fix is not named: '%s'", g_family[f].bin, g_err);
    ck_assert_str_eq(g_out, "");
  }
}
END_TEST

/* --fingerprint_out: beside --benchmark_out a usage error; without CUPTI exit 1, without a GPU exit 2; no file. */
START_TEST(fingerprint_out_without_a_gpu) {
  const char *tmp = getenv("TEST_TMPDIR") ? getenv("TEST_TMPDIR") : "/tmp";
  char path[4096], flag[4200];
  snprintf(path, sizeof path, "%s/fp.%d.json", tmp, (int)getpid());
  snprintf(flag, sizeof flag, "--fingerprint_out=%s", path);
  const char *both[] = {g_family[0].bin, flag, "--benchmark_out=r.json", NULL};
  ck_assert_int_eq(run(both), 2);
  ck_assert_ptr_nonnull(strstr(g_err, "cannot be combined with --benchmark_out"));
  ck_assert_ptr_nonnull(strstr(g_err, "usage:"));
  const char *argv[] = {g_family[0].bin, flag, NULL};
  int rc = run(argv); /* CUPTI is loaded first: a host without it stops there */
  ck_assert_msg(
      (rc == 1 && strstr(g_err, "--fingerprint_out: ")) || (rc == 2 && strstr(g_err, "no usable CUDA device")),
      "exit %d, stderr '%s'", rc, g_err);
  ck_assert_str_eq(g_out, "");
  ck_assert_int_ne(access(path, F_OK), 0);
}
END_TEST

START_TEST(filter_matching_nothing_fails) {
  const char *argv[] = {g_family[0].bin, "--benchmark_filter=nothing_is_called_this", NULL};
  ck_assert_int_eq(run(argv), 2);
  ck_assert_ptr_nonnull(strstr(g_err, "no benchmark matches"));
}
END_TEST

/* Arguments: FAMILY=BINARY, one per family. */
int main(int argc, char **argv) {
  for (int i = 1; i < argc; i++) {
    char *eq = strchr(argv[i], '=');
    if (!eq || eq == argv[i] || !eq[1] || g_nfamilies == MAX_FAMILIES) {
      fprintf(stderr, "usage: cli_test FAMILY=BINARY...\n");
      return 2;
    }
    *eq = '\0';
    g_family[g_nfamilies].name = argv[i];
    g_family[g_nfamilies++].bin = eq + 1;
  }
  Suite *s = suite_create("cli");
  TCase *tc = tcase_create("cli");
  tcase_add_test(tc, every_family_lists_without_a_gpu);
  tcase_add_test(tc, filters_select_by_regex);
  tcase_add_test(tc, help_exits_zero);
  tcase_add_test(tc, bad_flags_exit_two);
  tcase_add_test(tc, no_gpu_is_a_clear_error_in_every_family);
  tcase_add_test(tc, filter_matching_nothing_fails);
  tcase_add_test(tc, fingerprint_out_without_a_gpu);
  suite_add_tcase(s, tc);
  return run_suite_in_process(s);
}
