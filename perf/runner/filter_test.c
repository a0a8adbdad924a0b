/* CPU tests of Google Benchmark filter semantics (perf/runner/filter). */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "perf/runner/filter.h"
#include "tests/support/check_run.h"

static const char *kNames[] = {
    "elementwise/add/N:1048576",
    "elementwise/add_float4/N:1048576",
    "elementwise/add_float4/N:268435456",
    "elementwise/saxpy/N:16777216",
    "copy/memcpy/N:1048576",
    "transpose/tiled/nx:8192/ny:8192",
};
#define NNAMES (sizeof kNames / sizeof *kNames)

/* Bit i set when kNames[i] matches spec. */
static unsigned matches(const char *spec) {
  bench_filter f;
  char err[256];
  ck_assert_msg(filter_compile(&f, spec, err, sizeof err) == 0, "%s", err);
  unsigned m = 0;
  for (size_t i = 0; i < NNAMES; i++)
    if (filter_match(&f, kNames[i])) m |= 1u << i;
  filter_free(&f);
  return m;
}

START_TEST(everything_spellings) {
  unsigned all = (1u << NNAMES) - 1;
  ck_assert_uint_eq(matches(""), all);
  ck_assert_uint_eq(matches("."), all);
  ck_assert_uint_eq(matches("all"), all);
  ck_assert_uint_eq(matches(NULL), all);
}
END_TEST

START_TEST(substring_search_not_full_match) {
  ck_assert_uint_eq(matches("add"), 0x7);
  ck_assert_uint_eq(matches("add_float4"), 0x6);
  ck_assert_uint_eq(matches("N:1048576$"), 0x1 | 0x2 | 0x10);
  ck_assert_uint_eq(matches("^copy/"), 0x10);
  ck_assert_uint_eq(matches("nx:8192/ny:8192"), 0x20);
}
END_TEST

START_TEST(extended_regex_syntax) {
  ck_assert_uint_eq(matches("(saxpy|memcpy)"), 0x8 | 0x10);
  ck_assert_uint_eq(matches("add/N:[0-9]+$"), 0x1);
  ck_assert_uint_eq(matches("N:2684354[0-9]{2}"), 0x4);
  ck_assert_uint_eq(matches("nomatch"), 0);
}
END_TEST

START_TEST(leading_minus_negates) {
  ck_assert_uint_eq(matches("-add"), 0x8 | 0x10 | 0x20);
  ck_assert_uint_eq(matches("-^elementwise/"), 0x10 | 0x20);
  ck_assert_uint_eq(matches("-all"), 0); /* the negation of everything */
}
END_TEST

START_TEST(bad_regex_is_reported) {
  bench_filter f;
  char err[256] = "";
  ck_assert_int_eq(filter_compile(&f, "add(", err, sizeof err), -1);
  ck_assert_ptr_nonnull(strstr(err, "add("));
  ck_assert_ptr_nonnull(strstr(err, "--benchmark_filter"));
  ck_assert_int_eq(filter_compile(&f, "[z-a]", err, sizeof err), -1);
}
END_TEST

int main(void) {
  Suite *s = suite_create("filter");
  TCase *tc = tcase_create("filter");
  tcase_add_test(tc, everything_spellings);
  tcase_add_test(tc, substring_search_not_full_match);
  tcase_add_test(tc, extended_regex_syntax);
  tcase_add_test(tc, leading_minus_negates);
  tcase_add_test(tc, bad_regex_is_reported);
  suite_add_tcase(s, tc);
  return run_suite(s);
}
