/* CPU tests of benchmark registration and naming (perf/runner/registry). */
#define _GNU_SOURCE /* mkstemp, fork, pread */
#include <check.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "perf/runner/bench.h"
#include "tests/support/check_run.h"

static int dummy_setup(const bench_case *c, uint64_t seed, void **s, char *e, size_t n) {
  (void)c, (void)seed, (void)s, (void)e, (void)n;
  return 0;
}
static cudaError_t dummy_run(void *s, cudaStream_t st) {
  (void)s, (void)st;
  return cudaSuccess;
}
static int dummy_verify(void *s, char *e, size_t n) {
  (void)s, (void)e, (void)n;
  return 0;
}
static void dummy_teardown(void *s) { (void)s; }
static const bench_ops kOps = {dummy_setup, dummy_run, dummy_verify, dummy_teardown, NULL};

START_TEST(names_follow_google_benchmark) {
  char buf[256];
  bench_case c = {.family = "elementwise", .variant = "add_float4", .params = {{"N", 33554432}}, .ops = &kOps};
  ck_assert_int_eq(bench_case_name(&c, buf, sizeof buf), (int)strlen("elementwise/add_float4/N:33554432"));
  ck_assert_str_eq(buf, "elementwise/add_float4/N:33554432");
  bench_case t = {.family = "transpose", .variant = "tiled", .params = {{"nx", 8192}, {"ny", 4096}}, .ops = &kOps};
  bench_case_name(&t, buf, sizeof buf);
  ck_assert_str_eq(buf, "transpose/tiled/nx:8192/ny:4096");
  bench_case none = {.family = "reduce", .variant = "v6_multi_add", .ops = &kOps};
  bench_case_name(&none, buf, sizeof buf);
  ck_assert_str_eq(buf, "reduce/v6_multi_add");
  ck_assert_int_eq(bench_case_name(&c, buf, 10), -1); /* does not fit */
}
END_TEST

START_TEST(family_and_instance_indices) {
  bench_registry_clear();
  const char *variants[] = {"add", "add_float4"};
  for (int v = 0; v < 2; v++)
    for (long long n = 1 << 20; n <= 1 << 24; n <<= 4)
      bench_register(&(bench_case){
          .family = "elementwise", .variant = variants[v], .params = {{"N", n}}, .bytes = 12.0 * n, .ops = &kOps});
  bench_register(&(bench_case){.family = "copy", .variant = "add", .params = {{"N", 1}}, .ops = &kOps});
  ck_assert_uint_eq(bench_count(), 5);
  int fam[] = {0, 0, 1, 1, 2}, inst[] = {0, 1, 0, 1, 0};
  for (size_t i = 0; i < 5; i++) {
    ck_assert_int_eq(bench_family_index(i), fam[i]);
    ck_assert_int_eq(bench_instance_index(i), inst[i]);
  }
  ck_assert_str_eq(bench_get(2)->variant, "add_float4");
  ck_assert_double_eq(bench_get(1)->bytes, 12.0 * (1 << 24));
  ck_assert_ptr_null(bench_get(5));
  bench_registry_clear();
  ck_assert_uint_eq(bench_count(), 0);
}
END_TEST

/* A variant table the way families write them: the name first, the flags anywhere. */
typedef struct {
  const char *name;
  int host_round_trip;
  double bytes_per_element;
  int reference;
} test_variant;

static const test_variant kVariants[] = {{"naive", 0, 8.0, 0}, {"tiled", 1, 8.0, 0}, {"library", 0, 12.0, 1}};

static void test_cost(bench_case *c) {
  const test_variant *v = c->arg;
  c->bytes = v->bytes_per_element * (double)c->params[0].value * (double)c->params[1].value;
  c->flops = (double)c->params[1].value;
}

/* The cases of nested loops over variants, then sizes: names, order, arg, reference flag and cost. */
START_TEST(grid_registers_every_variant_at_every_size) {
  bench_registry_clear();
  static const long long shapes[][2] = {{16, 8}, {7, 5}};
  bench_register_grid(&(bench_grid){.family = "transpose",
                                    .ops = &kOps,
                                    BENCH_VARIANTS(kVariants, 3),
                                    .reference_at = offsetof(test_variant, reference),
                                    .host_round_trip_at = offsetof(test_variant, host_round_trip),
                                    .param_names = {"nx", "ny"},
                                    .sizes = &shapes[0][0],
                                    .nsizes = 2,
                                    .cost = test_cost});
  ck_assert_uint_eq(bench_count(), 6);
  const char *want[] = {"transpose/naive/nx:16/ny:8", "transpose/naive/nx:7/ny:5",    "transpose/tiled/nx:16/ny:8",
                        "transpose/tiled/nx:7/ny:5",  "transpose/library/nx:16/ny:8", "transpose/library/nx:7/ny:5"};
  char name[256];
  for (size_t i = 0; i < 6; i++) {
    const bench_case *c = bench_get(i);
    bench_case_name(c, name, sizeof name);
    ck_assert_str_eq(name, want[i]);
    ck_assert_ptr_eq(c->arg, &kVariants[i / 2]);
    ck_assert_int_eq(c->reference, i / 2 == 2);
    ck_assert_int_eq(c->host_round_trip, i / 2 == 1);
    ck_assert_ptr_eq(c->ops, &kOps);
    ck_assert_int_eq(bench_family_index(i), (int)(i / 2));
    ck_assert_int_eq(bench_instance_index(i), (int)(i % 2));
  }
  ck_assert_double_eq(bench_get(3)->bytes, 8.0 * 7 * 5);
  ck_assert_double_eq(bench_get(4)->bytes, 12.0 * 16 * 8);
  ck_assert_double_eq(bench_get(5)->flops, 5.0);
  /* No reference_at or host_round_trip_at: no case is either. */
  bench_registry_clear();
  bench_register_grid(&(bench_grid){.family = "t",
                                    .ops = &kOps,
                                    BENCH_VARIANTS(kVariants, 3),
                                    .param_names = {"nx", "ny"},
                                    .sizes = &shapes[0][0],
                                    .nsizes = 2,
                                    .cost = test_cost});
  for (size_t i = 0; i < bench_count(); i++) {
    ck_assert_int_eq(bench_get(i)->reference, 0);
    ck_assert_int_eq(bench_get(i)->host_round_trip, 0);
  }
  bench_registry_clear();
}
END_TEST

static int dummy_reuse(void *s, const bench_case *c, char *e, size_t n) {
  (void)s, (void)c, (void)e, (void)n;
  return 0;
}
static const bench_ops kReuseOps = {dummy_setup, dummy_run, dummy_verify, dummy_teardown, dummy_reuse};
static const bench_ops kOtherReuseOps = {dummy_setup, dummy_run, dummy_verify, dummy_teardown, dummy_reuse};

/* Cases of one ops table with reuse and the same params share a set-up, in the order they run: the
 * first sets up, the last tears down; other ops, other params or no reuse op set up their own. */
START_TEST(cases_of_one_size_share_a_set_up) {
  bench_registry_clear();
  static const long long sizes[] = {16, 7};
  /* 0 naive/16 1 naive/7 2 tiled/16 3 tiled/7 4 library/16 5 library/7 */
  bench_register_grid(&(bench_grid){.family = "t",
                                    .ops = &kReuseOps,
                                    BENCH_VARIANTS(kVariants, 3),
                                    .param_names = {"N"},
                                    .sizes = sizes,
                                    .nsizes = 2,
                                    .cost = test_cost});
  /* 6 u/naive/16: another ops table; 7 v/naive/16: no reuse op; 8 t/x/M:16: another param name */
  bench_register(&(bench_case){.family = "u", .variant = "naive", .params = {{"N", 16}}, .ops = &kOtherReuseOps});
  bench_register(&(bench_case){.family = "v", .variant = "naive", .params = {{"N", 16}}, .ops = &kOps});
  bench_register(&(bench_case){.family = "t", .variant = "x", .params = {{"M", 16}}, .ops = &kReuseOps});
  /* 9 t/y/N:16/K:1 one param more */
  bench_register(&(bench_case){.family = "t", .variant = "y", .params = {{"N", 16}, {"K", 1}}, .ops = &kReuseOps});
  ck_assert(bench_same_inputs(0, 2));
  ck_assert(bench_same_inputs(4, 0));
  ck_assert(!bench_same_inputs(0, 1));
  ck_assert(!bench_same_inputs(0, 6));
  ck_assert(!bench_same_inputs(7, 7)); /* no reuse op: not even with itself */
  ck_assert(!bench_same_inputs(0, 8));
  ck_assert(!bench_same_inputs(0, 9));
  ck_assert(!bench_same_inputs(9, 0));

  size_t order[] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9}, leader[10];
  unsigned char last[10];
  bench_plan_inputs(order, 10, leader, last);
  const size_t want_leader[] = {0, 1, 0, 1, 0, 1, 6, 7, 8, 9};
  const unsigned char want_last[] = {0, 0, 0, 0, 1, 1, 1, 1, 1, 1};
  for (size_t p = 0; p < 10; p++) {
    ck_assert_uint_eq(leader[p], want_leader[p]);
    ck_assert_uint_eq(last[p], want_last[p]);
  }
  /* A subset in another order (the short cases of a context): positions, not registry indices. */
  size_t subset[] = {5, 2, 3, 0};
  bench_plan_inputs(subset, 4, leader, last);
  const size_t sub_leader[] = {0, 1, 0, 1};
  const unsigned char sub_last[] = {0, 0, 1, 1};
  for (size_t p = 0; p < 4; p++) {
    ck_assert_uint_eq(leader[p], sub_leader[p]);
    ck_assert_uint_eq(last[p], sub_last[p]);
  }
  bench_registry_clear();
}
END_TEST

/* Variant tables whose entries do not start with their name, as a family might write them by mistake. */
static void launcher(void) {}
typedef struct {
  void (*fn)(void);
  const char *name;
} fn_first_variant;
static const fn_first_variant kFnFirst[] = {{launcher, "a"}};
typedef struct {
  size_t block;
  const char *name;
} number_first_variant;
static const number_first_variant kNumberFirst[] = {{256, "a"}};
static const test_variant kNullName[] = {{NULL, 0, 8.0, 0}};
static const test_variant kEmptyName[] = {{"", 0, 8.0, 0}};
static const test_variant kSpaceInName[] = {{"naive", 0, 8.0, 0}, {"a b", 0, 8.0, 0}};

static const long long kOneSize[] = {16};
#define GRID(table)                                                   \
  (&(bench_grid){.family = "f",                                       \
                 .ops = &kOps,                                        \
                 BENCH_VARIANTS(table, sizeof table / sizeof *table), \
                 .param_names = {"N"},                                \
                 .sizes = kOneSize,                                   \
                 .nsizes = 1,                                         \
                 .cost = test_cost})

/* Runs bench_register_grid(g) in a child whose stderr goes to a file; returns its exit status (-1 if it
 * did not exit) and its message in msg. */
static int grid_exit(const bench_grid *g, char *msg, size_t len) {
  char path[] = "/tmp/registry_test_XXXXXX";
  int fd = mkstemp(path);
  ck_assert_int_ge(fd, 0);
  pid_t pid = fork();
  ck_assert_int_ge(pid, 0);
  if (pid == 0) {
    dup2(fd, 2);
    bench_register_grid(g);
    _exit(0);
  }
  int status;
  ck_assert_int_eq(waitpid(pid, &status, 0), pid);
  ssize_t n = pread(fd, msg, len - 1, 0);
  msg[n > 0 ? n : 0] = 0;
  close(fd);
  unlink(path);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* Printable ASCII and newlines only: no bytes of a launcher's code. */
static int printable(const char *s) {
  for (; *s; s++)
    if ((*s < ' ' || *s > '~') && *s != '\n') return 0;
  return 1;
}

/* A table whose entries do not start with a name exits 2 with a message that says so, names the entry
 * and the table's file, shows the expected shape and prints no garbage. */
START_TEST(table_without_names_first_exits_2_saying_so) {
  char msg[2048];
  struct {
    const bench_grid *g;
    const char *why;
  } cases[] = {
      {GRID(kFnFirst),
       "entry 0 of the variant table (kernels/f/f_variants.c, given to BENCH_VARIANTS) does not "
       "start with its name"},
      {GRID(kNumberFirst),
       "entry 0 of the variant table (kernels/f/f_variants.c, given to BENCH_VARIANTS) does "
       "not start with its name: its first member is a small number (256), not a pointer"},
      {GRID(kNullName),
       "entry 0 of the variant table (kernels/f/f_variants.c, given to BENCH_VARIANTS) does not "
       "start with its name: its first member is NULL"},
      {GRID(kEmptyName), "its first member is an empty string"},
      {GRID(kSpaceInName),
       "entry 1 of the variant table (kernels/f/f_variants.c, given to BENCH_VARIANTS) does not "
       "start with its name: its first member points to bytes that are not a name (byte 1 is 0x20)"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    ck_assert_int_eq(grid_exit(cases[i].g, msg, sizeof msg), 2);
    ck_assert_msg(strstr(msg, "bench_register_grid: family 'f': "), "case %zu: %s", i, msg);
    ck_assert_msg(strstr(msg, cases[i].why), "case %zu: want '%s' in: %s", i, cases[i].why, msg);
    ck_assert_msg(strstr(msg, "every entry starts with `const char *name`, e.g. {\"scale\", scale}"), "case %zu: %s", i,
                  msg);
    ck_assert_msg(printable(msg), "case %zu: unprintable bytes in: %s", i, msg);
  }
  /* A well-formed table registers. */
  ck_assert_int_eq(grid_exit(GRID(kVariants), msg, sizeof msg), 0);
  ck_assert_str_eq(msg, "");
}
END_TEST

/* Malformed registrations exit 2 (bad input) before anything runs (Check forks each test). */
START_TEST(duplicate_name_exits) {
  bench_case c = {.family = "f", .variant = "v", .params = {{"N", 1}}, .ops = &kOps};
  bench_register(&c);
  bench_register(&c);
}
END_TEST

START_TEST(slash_in_variant_exits) { bench_register(&(bench_case){.family = "f", .variant = "a/b", .ops = &kOps}); }
END_TEST

START_TEST(space_in_variant_exits) { bench_register(&(bench_case){.family = "f", .variant = "a b", .ops = &kOps}); }
END_TEST

START_TEST(missing_ops_exits) {
  bench_ops partial = kOps;
  partial.verify = NULL;
  bench_register(&(bench_case){.family = "f", .variant = "v", .ops = &partial});
}
END_TEST

START_TEST(grid_without_parameter_names_exits) {
  static const long long sizes[] = {1, 2};
  bench_register_grid(&(bench_grid){
      .family = "f", .ops = &kOps, BENCH_VARIANTS(kVariants, 3), .sizes = sizes, .nsizes = 2, .cost = test_cost});
}
END_TEST

int main(void) {
  Suite *s = suite_create("registry");
  TCase *tc = tcase_create("registry");
  tcase_add_test(tc, names_follow_google_benchmark);
  tcase_add_test(tc, family_and_instance_indices);
  tcase_add_test(tc, grid_registers_every_variant_at_every_size);
  tcase_add_test(tc, cases_of_one_size_share_a_set_up);
  tcase_add_test(tc, table_without_names_first_exits_2_saying_so);
  tcase_add_exit_test(tc, grid_without_parameter_names_exits, 2);
  tcase_add_exit_test(tc, duplicate_name_exits, 2);
  tcase_add_exit_test(tc, slash_in_variant_exits, 2);
  tcase_add_exit_test(tc, space_in_variant_exits, 2);
  tcase_add_exit_test(tc, missing_ops_exits, 2);
  suite_add_tcase(s, tc);
  return run_suite(s);
}
