/* The runner's id (BUILD's runner_id_c genrule): 16 lowercase hex digits, so that the fingerprint's
 * "runner" field always holds a hash and never an empty or failed command's output. */
#include <check.h>
#include <string.h>

#include "tests/support/check_run.h"

extern const char bench_runner_id[];

START_TEST(sixteen_hex_digits) {
  ck_assert_uint_eq(strlen(bench_runner_id), 16);
  ck_assert_uint_eq(strspn(bench_runner_id, "0123456789abcdef"), 16);
  /* sha256 of nothing: the sources were not read. */
  ck_assert_str_ne(bench_runner_id, "e3b0c44298fc1c14");
}
END_TEST

int main(void) {
  Suite *s = suite_create("runner_id");
  TCase *tc = tcase_create("runner_id");
  tcase_add_test(tc, sixteen_hex_digits);
  suite_add_tcase(s, tc);
  return run_suite(s);
}
