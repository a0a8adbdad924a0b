/* CPU tests of //plots:render's readers (plots/testdata, "Test Fixture GPU"): benchmark names and sizes, the
 * history, run and verdicts files, and bad inputs: each refused by name with its reason, by the readers and by the
 * binary, which then writes nothing (nor on a usage error, or a compute_capability that is not MAJOR.MINOR). */
#define _GNU_SOURCE
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "plots/inputs.h"
#include "plots/render_testutil.h"
#include "tests/support/check_run.h"

/* ---------- names ---------- */

START_TEST(names_split_into_family_variant_and_size) {
  bench_name b;
  char err[512];
  ck_assert_int_eq(parse_bench_name("elementwise/add_float4/N:268435456", &b, err, sizeof err), 0);
  ck_assert_str_eq(b.family, "elementwise");
  ck_assert_str_eq(b.variant, "add_float4");
  ck_assert_str_eq(b.params, "N:268435456");
  ck_assert_str_eq(b.size_label, "256Mi");
  ck_assert_str_eq(b.size_axis, "N");
  ck_assert_double_eq(b.size, 268435456.0);
  ck_assert_int_eq(parse_bench_name("transpose/tiled/nx:8192/ny:4097", &b, err, sizeof err), 0);
  ck_assert_str_eq(b.params, "nx:8192/ny:4097");
  ck_assert_str_eq(b.size_label, "8192×4097");
  ck_assert_str_eq(b.size_axis, "nx×ny");
  ck_assert_double_eq(b.size, 8192.0 * 4097.0);
  ck_assert_int_eq(parse_bench_name("copy/memcpy", &b, err, sizeof err), 0);
  ck_assert_str_eq(b.params, "");
  ck_assert_double_eq(b.size, 1.0);
  const char *bad[] = {"elementwise", "a/b/N", "a/b/N:x", "a/b/N:0", "a/b/:5", "a/b/N:12abc", ""};
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    ck_assert_msg(parse_bench_name(bad[i], &b, err, sizeof err) != 0, "'%s' accepted", bad[i]);
    ck_assert_msg(strstr(err, bad[i]) != NULL, "message '%s' does not name '%s'", err, bad[i]);
  }
}
END_TEST

START_TEST(sizes_are_short_and_exact) {
  char b[32];
  long long v[] = {1, 4097, 8192, 65536, 1 << 20, 3ll << 30, 1000000, 65537};
  const char *want[] = {"1", "4097", "8192", "64Ki", "1Mi", "3Gi", "1000000", "65537"};
  for (size_t i = 0; i < sizeof v / sizeof *v; i++) {
    format_size(v[i], b, sizeof b);
    ck_assert_str_eq(b, want[i]);
  }
}
END_TEST

/* ---------- readers ---------- */

START_TEST(history_fixture_is_read) {
  history_file h;
  char err[1024];
  ck_assert_msg(load_history_file(FIX "/baselines/history/" SLUG ".csv", &h, err, sizeof err) == 0, "%s", err);
  /* 8 runs x 9 elementwise + 5 x 8 matmul + 1 x 4 transpose */
  ck_assert_uint_eq(h.n, 72 + 40 + 4);
  ck_assert_str_eq(h.r[0].gpu, SLUG);
  ck_assert_str_eq(h.r[0].bench, "elementwise/add/N:1048576");
  ck_assert_str_eq(h.r[0].id.family, "elementwise");
  ck_assert_double_eq_tol(h.r[0].time_ns, 7312.42, 1e-6);
  size_t slower = 0;
  for (size_t i = 0; i < h.n; i++) slower += !strcmp(h.r[i].verdict, "slower");
  ck_assert_uint_eq(slower, 3);
  free_history_file(&h);
}
END_TEST

typedef struct {
  const char *file, *says;
} bad_input;

static const bad_input kBad[] = {
    {"empty.csv", "empty file"},
    {"header_only.csv", "no rows after the header"},
    {"wrong_header.csv", "line 1: expected the header"},
    {"bad_number.csv", "line 3: field median_ns: expected a positive number, got 'fast'"},
    {"short_row.csv", "line 2: expected 8 or 9 comma-separated fields"},
    {"v2_short_row.csv", "line 2: expected 9 comma-separated fields"},
    {"bad_flush_method.csv", "line 2: field l2_flush: expected read, write or hot, got 'sideways'"},
    {"truncated.json", "not valid JSON"},
    {"no_benchmarks.json", "no iteration entries"},
    {"no_gpu_name.json", "field context.gpu.name"},
    {"verdicts_no_delta.json", "field verdicts[0].delta"},
    {"verdicts_bad_gpu.json", "field gpu.name"},
    {"unknown_kind.json", "not a run of the benchmark runner"},
};

START_TEST(bad_inputs_are_refused_by_name) {
  for (size_t i = 0; i < sizeof kBad / sizeof *kBad; i++) {
    render_inputs in = {0};
    char path[512], err[2048];
    snprintf(path, sizeof path, FIX "/bad/%s", kBad[i].file);
    ck_assert_msg(load_input(&in, path, err, sizeof err) != 0, "%s accepted", path);
    ck_assert_msg(strstr(err, path) != NULL, "message '%s' does not name %s", err, path);
    ck_assert_msg(strstr(err, kBad[i].says) != NULL, "message '%s' does not say '%s'", err, kBad[i].says);
    ck_assert_uint_eq(in.nruns + in.nhist + in.nverdicts + in.nbases, 0);
    free_inputs(&in);
  }
}
END_TEST

START_TEST(run_fixture_gives_references_and_flops) {
  run_file r;
  char err[1024];
  ck_assert_msg(load_run_file(FIX "/runs/matmul.json", &r, err, sizeof err) == 0, "%s", err);
  ck_assert_str_eq(r.gpu.name, "Test Fixture GPU");
  ck_assert_double_eq(r.peak_gbps, 3000.0);
  ck_assert_double_eq(r.copy_gbps, 2700.0);
  ck_assert_str_eq(r.executable, "matmul_bench");
  ck_assert_uint_eq(r.n, 8);
  for (size_t i = 0; i < r.n; i++) {
    ck_assert_int_eq(r.b[i].order, (int)i);
    ck_assert_int_eq(r.b[i].library_reference, !strcmp(r.b[i].id.variant, "cublas"));
    double m = r.b[i].id.size == 4096.0 * 4096 * 4096 ? 4096 : 1024;
    ck_assert_double_eq_tol(r.b[i].flops_per_call / (2 * m * m * m), 1.0, 1e-6);
  }
  free(r.b);
}
END_TEST

START_TEST(verdicts_fixture_is_read) {
  verdicts_file v;
  char err[1024];
  ck_assert_msg(load_verdicts_file(FIX "/verdicts.json", &v, err, sizeof err) == 0, "%s", err);
  ck_assert_str_eq(v.metric, "time");
  ck_assert_str_eq(v.gpu_name, "Test Fixture GPU");
  ck_assert_str_eq(v.gpu_slug, SLUG);
  ck_assert_uint_eq(v.n, 10);
  ck_assert_str_eq(v.v[8].name, "elementwise/saxpy/N:268435456");
  ck_assert_str_eq(v.v[8].verdict, "slower");
  ck_assert_double_eq_tol(v.v[8].delta, 0.11, 1e-4);
  ck_assert_str_eq(v.v[9].verdict, "missing");
  ck_assert(isnan(v.v[9].run_ns));
  free(v.v);
}
END_TEST

/* ---------- bad inputs, end to end ---------- */

/* A compute_capability that is not MAJOR.MINOR is refused, never cut short or put on the page (#56 S01). */
START_TEST(a_hostile_compute_capability_is_refused) {
  char dir[1200], cmd[4096], args[4096], errfile[1200], out[1200], index[1400];
  snprintf(dir, sizeof dir, "%s/hostile", tmp);
  snprintf(cmd, sizeof cmd,
           "mkdir -p '%s' && sed 's|\"compute_capability\": \"9.0\"|\"compute_capability\": "
           "\"9.0</td><script>alert(1)</script>\"|' " FIX "/runs/elementwise.json > '%s/elementwise.json'",
           dir, dir);
  ck_assert_int_eq(system(cmd), 0);
  snprintf(errfile, sizeof errfile, "%s/hostile.err", tmp);
  snprintf(out, sizeof out, "%s/hostile_out", tmp);
  snprintf(args, sizeof args, "'%s/elementwise.json' '%s'", dir, out);
  ck_assert_int_eq(run_render(args, errfile), 2); /* not the runner's: refused, naming the field */
  char *err = slurp(errfile, NULL);
  ck_assert_msg(strstr(err, "field context.gpu.compute_capability: expected MAJOR.MINOR") != NULL, "%s", err);
  free(err);
  snprintf(index, sizeof index, "%s/index.html", out);
  ck_assert_int_ne(access(index, F_OK), 0);
}
END_TEST

START_TEST(bad_input_writes_nothing) {
  for (size_t i = 0; i < sizeof kBad / sizeof *kBad; i++) {
    char args[4096], errfile[1200], out[1200];
    snprintf(errfile, sizeof errfile, "%s/bad%zu.err", tmp, i);
    snprintf(out, sizeof out, "%s/bad%zu_out", tmp, i);
    /* A good run alongside: one bad input is enough to stop everything. */
    snprintf(args, sizeof args, FIX "/runs/elementwise.json " FIX "/bad/%s '%s'", kBad[i].file, out);
    ck_assert_int_eq(run_render(args, errfile), 2);
    char *msg = slurp(errfile, NULL);
    ck_assert_msg(strstr(msg, kBad[i].file) && strstr(msg, kBad[i].says), "%s: %s", kBad[i].file, msg);
    free(msg);
    ck_assert_msg(access(out, F_OK) != 0, "%s: output directory created for a bad input", kBad[i].file);
  }
  char errfile[1200], args[2048];
  snprintf(errfile, sizeof errfile, "%s/usage.err", tmp);
  ck_assert_int_eq(run_render(FIX "/runs/elementwise.json", errfile), 2); /* no OUTDIR */
  snprintf(args, sizeof args, FIX "/verdicts.json '%s/v_out'", tmp);
  ck_assert_int_eq(run_render(args, errfile), 2); /* nothing to chart */
  snprintf(args, sizeof args, "/no/such/file.json '%s/n_out'", tmp);
  ck_assert_int_eq(run_render(args, errfile), 2);
  snprintf(args, sizeof args, "--tolerance=3 " FIX "/runs/elementwise.json '%s/t_out'", tmp);
  ck_assert_int_eq(run_render(args, errfile), 2);
  ck_assert_int_eq(run_render(FIX "/runs/elementwise.json ''", errfile), 2); /* empty OUTDIR */
  char *msg = slurp(errfile, NULL);
  ck_assert_msg(strstr(msg, "OUTDIR is empty") != NULL, "%s", msg);
  free(msg);
  /* --help is no error: the usage on stdout, exit 0. */
  char cmd[4096], help[1200];
  snprintf(help, sizeof help, "%s/help.out", tmp);
  snprintf(cmd, sizeof cmd, "'%s' --help >'%s' 2>'%s'", render_bin, help, errfile);
  int st = system(cmd);
  ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0, "render --help: exit status %d", st);
  msg = slurp(help, NULL);
  ck_assert_msg(strncmp(msg, "usage: render", 13) == 0, "render --help printed on stdout: %s", msg);
  free(msg);
}
END_TEST

int main(int argc, char **argv) {
  if (render_test_setup(argc, argv) != 0) return 2;
  Suite *s = suite_create("render_inputs");
  TCase *tc = tcase_create("render_inputs");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, names_split_into_family_variant_and_size);
  tcase_add_test(tc, a_hostile_compute_capability_is_refused);
  tcase_add_test(tc, sizes_are_short_and_exact);
  tcase_add_test(tc, history_fixture_is_read);
  tcase_add_test(tc, bad_inputs_are_refused_by_name);
  tcase_add_test(tc, run_fixture_gives_references_and_flops);
  tcase_add_test(tc, verdicts_fixture_is_read);
  tcase_add_test(tc, bad_input_writes_nothing);
  suite_add_tcase(s, tc);
  return run_suite(s);
}
