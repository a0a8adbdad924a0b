/* CPU tests of command-line parsing (perf/runner/flags): Google Benchmark's flags,
 * the GPU flags, and a usage error naming what is accepted for bad input. */
#include <check.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "perf/runner/flags.h"
#include "tests/support/check_run.h"

static bench_options g_opt;
static char g_err[512];

/* Parses the NULL-terminated flags after a program name. */
static flags_status parse(const char *first, ...) {
  static char *argv[32];
  int argc = 0;
  argv[argc++] = "bench";
  va_list ap;
  va_start(ap, first);
  for (const char *a = first; a; a = va_arg(ap, const char *)) argv[argc++] = (char *)a;
  va_end(ap);
  argv[argc] = NULL;
  return flags_parse(argc, argv, &g_opt, g_err, sizeof g_err);
}

START_TEST(defaults) {
  ck_assert_int_eq(parse(NULL), FLAGS_OK);
  ck_assert_str_eq(g_opt.filter, ".");
  ck_assert_int_eq(g_opt.list_tests, 0);
  ck_assert_int_eq(g_opt.repetitions, 1);
  ck_assert_double_eq(g_opt.min_time_s, 0.1);
  ck_assert_int_eq(g_opt.format, FORMAT_CONSOLE);
  ck_assert_int_eq(g_opt.out_format, FORMAT_JSON);
  ck_assert_ptr_null(g_opt.out_path);
  ck_assert_int_eq(g_opt.hot, 0);
  ck_assert_int_eq(g_opt.l2_flush_write, 0);
  ck_assert_int_eq(g_opt.device, 0);
  ck_assert_double_eq(g_opt.max_noise_pct, 0.3);
  ck_assert_double_eq(g_opt.timeout_s, 10);
  ck_assert_int_eq(g_opt.min_samples, 10);
  ck_assert_double_eq(g_opt.min_clock_ratio, 0.7);
  ck_assert_int_eq(g_opt.contexts, 1);
  ck_assert_double_eq_tol(g_opt.contexts_below_s, 50e-6, 1e-15);
  ck_assert_int_eq(g_opt.long_contexts, 0);
  ck_assert_ptr_null(g_opt.fingerprint_out);
}
END_TEST

START_TEST(google_benchmark_flags) {
  ck_assert_int_eq(parse("--benchmark_filter=add_float4/N:1048576$", "--benchmark_list_tests",
                         "--benchmark_repetitions=12", "--benchmark_min_time=0.5s", "--benchmark_min_warmup_time=0.25",
                         "--benchmark_format=json", "--benchmark_out=/tmp/x.json", "--benchmark_out_format=csv",
                         "--benchmark_context=commit=abc,host=h100", "--benchmark_context=note=a=b",
                         "--benchmark_report_aggregates_only=true", "--benchmark_display_aggregates_only=1", NULL),
                   FLAGS_OK);
  ck_assert_str_eq(g_opt.filter, "add_float4/N:1048576$");
  ck_assert_int_eq(g_opt.list_tests, 1);
  ck_assert_int_eq(g_opt.repetitions, 12);
  ck_assert_double_eq(g_opt.min_time_s, 0.5);
  ck_assert_double_eq(g_opt.min_warmup_s, 0.25);
  ck_assert_int_eq(g_opt.format, FORMAT_JSON);
  ck_assert_str_eq(g_opt.out_path, "/tmp/x.json");
  ck_assert_int_eq(g_opt.out_format, FORMAT_CSV);
  ck_assert_int_eq(g_opt.n_context, 3);
  ck_assert_str_eq(g_opt.context[0].key, "commit");
  ck_assert_str_eq(g_opt.context[0].value, "abc");
  ck_assert_str_eq(g_opt.context[1].key, "host");
  ck_assert_str_eq(g_opt.context[1].value, "h100");
  ck_assert_str_eq(g_opt.context[2].key, "note");
  ck_assert_str_eq(g_opt.context[2].value, "a=b"); /* split at the first '=' */
  ck_assert_int_eq(g_opt.report_aggregates_only, 1);
  ck_assert_int_eq(g_opt.display_aggregates_only, 1);
}
END_TEST

START_TEST(gpu_flags) {
  ck_assert_int_eq(parse("--device=1", "--hot", "--max_noise=0.5%", "--timeout=30s", "--min_samples=25",
                         "--min_clock_ratio=0", NULL),
                   FLAGS_OK);
  ck_assert_int_eq(g_opt.device, 1);
  ck_assert_int_eq(g_opt.hot, 1);
  ck_assert_double_eq(g_opt.max_noise_pct, 0.5);
  ck_assert_double_eq(g_opt.timeout_s, 30);
  ck_assert_int_eq(g_opt.min_samples, 25);
  ck_assert_double_eq(g_opt.min_clock_ratio, 0);
  ck_assert_int_eq(parse("--hot=false", "--timeout=2", "--max_noise=1", NULL), FLAGS_OK);
  ck_assert_int_eq(g_opt.hot, 0);
  ck_assert_double_eq(g_opt.timeout_s, 2);
  ck_assert_int_eq(parse("--l2_flush=write", NULL), FLAGS_OK);
  ck_assert_int_eq(g_opt.l2_flush_write, 1);
  ck_assert_int_eq(parse("--l2_flush=read", NULL), FLAGS_OK);
  ck_assert_int_eq(g_opt.l2_flush_write, 0);
  ck_assert_int_eq(parse("--contexts=32", "--contexts_below=12.5us", NULL), FLAGS_OK);
  ck_assert_int_eq(g_opt.contexts, 32);
  ck_assert_double_eq_tol(g_opt.contexts_below_s, 12.5e-6, 1e-15);
  /* The runner gives its children overrides after the user's flags: the last one counts. */
  ck_assert_int_eq(parse("--contexts=32", "--benchmark_filter=a", "--contexts=1", "--benchmark_filter=b", NULL),
                   FLAGS_OK);
  ck_assert_int_eq(g_opt.contexts, 1);
  ck_assert_str_eq(g_opt.filter, "b");
  /* The long benchmarks' contexts are the first l of the k: l from 0 to k, k at least 2. */
  ck_assert_int_eq(parse("--long_contexts=4", "--contexts=16", NULL), FLAGS_OK);
  ck_assert_int_eq(g_opt.long_contexts, 4);
  ck_assert_int_eq(parse("--contexts=2", "--long_contexts=2", NULL), FLAGS_OK);
  ck_assert_int_eq(g_opt.long_contexts, 2);
  ck_assert_int_eq(parse("--long_contexts=0", NULL), FLAGS_OK);
  ck_assert_int_eq(parse("--long_contexts=4", NULL), FLAGS_ERROR);
  ck_assert_msg(strstr(g_err, "--long_contexts=4: needs --contexts=k with k >= 2 and k >= 4") != NULL, "%s", g_err);
  ck_assert_int_eq(parse("--contexts=3", "--long_contexts=4", NULL), FLAGS_ERROR);
  ck_assert_msg(strstr(g_err, "--contexts is 3") != NULL, "%s", g_err);
  ck_assert_int_eq(parse("--contexts=1", "--long_contexts=1", NULL), FLAGS_ERROR);
}
END_TEST

START_TEST(booleans_and_separate_values) {
  ck_assert_int_eq(parse("--benchmark_list_tests=false", NULL), FLAGS_OK);
  ck_assert_int_eq(g_opt.list_tests, 0);
  ck_assert_int_eq(parse("--benchmark_list_tests=YES", NULL), FLAGS_OK);
  ck_assert_int_eq(g_opt.list_tests, 1);
  ck_assert_int_eq(parse("--benchmark_filter", "saxpy", "--benchmark_min_time=2", NULL), FLAGS_OK);
  ck_assert_str_eq(g_opt.filter, "saxpy");
  ck_assert_double_eq(g_opt.min_time_s, 2); /* a bare number is seconds, as in Google Benchmark */
  ck_assert_int_eq(parse("--benchmark_filter=-add", NULL), FLAGS_OK);
  ck_assert_str_eq(g_opt.filter, "-add");
}
END_TEST

START_TEST(help) {
  ck_assert_int_eq(parse("--help", NULL), FLAGS_HELP);
  ck_assert_int_eq(parse("-h", NULL), FLAGS_HELP);
}
END_TEST

/* Each bad input is an error whose message contains `needle`. */
static void expect_error(const char *arg, const char *needle) {
  ck_assert_msg(parse(arg, NULL) == FLAGS_ERROR, "'%s' was accepted", arg);
  ck_assert_msg(strstr(g_err, needle) != NULL, "'%s': message '%s' lacks '%s'", arg, g_err, needle);
}

START_TEST(bad_flags_and_values) {
  expect_error("--benchmark_fliter=add", "unknown flag '--benchmark_fliter'");
  expect_error("--benchmark_rep=3", "unknown flag"); /* no abbreviations */
  expect_error("--benchmark_color=false", "unknown flag");
  expect_error("-x", "unknown flag '-x'");
  expect_error("positional", "unexpected argument 'positional'");
  expect_error("--benchmark_repetitions=0", "integer from 1");
  expect_error("--benchmark_repetitions=3x", "integer from 1");
  expect_error("--benchmark_repetitions=", "integer from 1");
  expect_error("--benchmark_min_time=0s", "positive time");
  expect_error("--benchmark_min_time=-1s", "positive time");
  expect_error("--benchmark_min_time=fast", "positive time");
  expect_error("--benchmark_min_time=100x", "--min_samples");
  expect_error("--benchmark_min_warmup_time=-0.1", ">= 0");
  expect_error("--benchmark_format=xml", "console, json or csv");
  expect_error("--benchmark_out_format=tabular", "console, json or csv");
  expect_error("--benchmark_out=", "file name");
  expect_error("--benchmark_context=novalue", "<key>=<value>");
  expect_error("--benchmark_context==v", "non-empty key");
  expect_error("--benchmark_list_tests=maybe", "true or false");
  expect_error("--benchmark_report_aggregates_only=2", "true or false");
  expect_error("--hot=sometimes", "true or false");
  expect_error("--l2_flush=memset", "read or write");
  expect_error("--device=-1", "ordinal");
  expect_error("--device=gpu0", "ordinal");
  expect_error("--max_noise=0", "percentage");
  expect_error("--max_noise=nan", "percentage");
  expect_error("--timeout=inf", "positive time");
  expect_error("--min_samples=0", "integer from 1");
  expect_error("--min_clock_ratio=1.5", "ratio from 0");
  expect_error("--contexts=0", "integer from 1 to 256");
  expect_error("--contexts=257", "integer from 1 to 256");
  expect_error("--contexts=many", "integer from 1 to 256");
  expect_error("--contexts_below=50", "microseconds like 50us");
  expect_error("--contexts_below=0us", "microseconds like 50us");
  expect_error("--contexts_below=us", "microseconds like 50us");
  expect_error("--long_contexts=-1", "integer from 0 to 256");
  expect_error("--benchmark_filter", "expected a value");
}
END_TEST

START_TEST(fingerprint_out) {
  ck_assert_int_eq(parse("--fingerprint_out=/tmp/fp.json", "--benchmark_filter=add", "--device=1", NULL), FLAGS_OK);
  ck_assert_str_eq(g_opt.fingerprint_out, "/tmp/fp.json");
  ck_assert_str_eq(g_opt.filter, "add");
  ck_assert_int_eq(g_opt.device, 1);
  expect_error("--fingerprint_out=", "file name");
  /* A fingerprint run measures nothing: no results file, no listing beside it. */
  ck_assert_int_eq(parse("--fingerprint_out=fp.json", "--benchmark_out=r.json", NULL), FLAGS_ERROR);
  ck_assert_ptr_nonnull(strstr(g_err, "--fingerprint_out=fp.json cannot be combined with --benchmark_out"));
  ck_assert_int_eq(parse("--benchmark_list_tests", "--fingerprint_out=fp.json", NULL), FLAGS_ERROR);
  ck_assert_ptr_nonnull(strstr(g_err, "cannot be combined with --benchmark_list_tests"));
  /* Listing explicitly turned off is no listing. */
  ck_assert_int_eq(parse("--benchmark_list_tests=false", "--fingerprint_out=fp.json", NULL), FLAGS_OK);
}
END_TEST

START_TEST(reparse_resets_state) {
  ck_assert_int_eq(parse("--hot", "--benchmark_context=a=1", NULL), FLAGS_OK);
  ck_assert_int_eq(parse(NULL), FLAGS_OK);
  ck_assert_int_eq(g_opt.hot, 0);
  ck_assert_int_eq(g_opt.n_context, 0);
}
END_TEST

int main(void) {
  Suite *s = suite_create("flags");
  TCase *tc = tcase_create("flags");
  tcase_add_test(tc, defaults);
  tcase_add_test(tc, google_benchmark_flags);
  tcase_add_test(tc, gpu_flags);
  tcase_add_test(tc, booleans_and_separate_values);
  tcase_add_test(tc, help);
  tcase_add_test(tc, bad_flags_and_values);
  tcase_add_test(tc, reparse_resets_state);
  tcase_add_test(tc, fingerprint_out);
  suite_add_tcase(s, tc);
  return run_suite(s);
}
