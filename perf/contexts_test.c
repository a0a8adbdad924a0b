/* CPU tests of --processes (perf/processes): which benchmarks are short, the
 * child's samples file written and pooled back, its errors, the reported
 * time (the mean of the process medians) and its JSON, and a stand-in child
 * run through processes_run_child. */
#define _GNU_SOURCE
#include <check.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "perf/processes.h"
#include "perf/report.h"
#include "perf/schema.h"
#include "perf/synthetic.h"

/* The synthetic results, copied to the heap so that merging can grow them. */
static void heap_results(run_context *ctx, bench_result res[SYN_RESULTS]) {
  synthetic_results(ctx, res);
  for (int i = 0; i < SYN_RESULTS; i++) {
    if (!res[i].reps) continue;
    rep_result *reps = calloc((size_t)res[i].nreps, sizeof *reps);
    for (int k = 0; k < res[i].nreps; k++) {
      reps[k] = res[i].reps[k];
      size_t n = reps[k].n;
      reps[k].gpu_ns = malloc(n * sizeof(double));
      reps[k].host_ns = malloc(n * sizeof(double));
      memcpy(reps[k].gpu_ns, res[i].reps[k].gpu_ns, n * sizeof(double));
      memcpy(reps[k].host_ns, res[i].reps[k].host_ns, n * sizeof(double));
    }
    res[i].reps = reps;
  }
}

static void free_results(bench_result res[SYN_RESULTS]) {
  for (int i = 0; i < SYN_RESULTS; i++) {
    for (int k = 0; res[i].reps && k < res[i].nreps; k++) {
      free(res[i].reps[k].gpu_ns);
      free(res[i].reps[k].host_ns);
      free(res[i].reps[k].process_ns);
    }
    free(res[i].reps);
  }
}

static void temp_path(char *buf, size_t len, const char *name) {
  const char *dir = getenv("TEST_TMPDIR");
  snprintf(buf, len, "%s/%s", dir && *dir ? dir : "/tmp", name);
}

static void write_text(const char *path, const char *text) {
  FILE *f = fopen(path, "w");
  ck_assert_ptr_nonnull(f);
  fputs(text, f);
  fclose(f);
}

START_TEST(short_filter_names_the_short_ones_escaped) {
  run_context ctx;
  bench_result res[SYN_RESULTS];
  synthetic_results(&ctx, res);
  char buf[1024];
  /* Medians: add_float4 1000/1010/1020 ns, memcpy 703 ns, broken failed, saxpy 2150/2200 ns. */
  ck_assert_int_eq(processes_short_filter(res, SYN_RESULTS, 1100, buf, sizeof buf), 2);
  ck_assert_str_eq(buf, "^(elementwise/add_float4/N:1048576|copy/memcpy/N:1048576)$");
  /* Every repetition must be short: add_float4's third is 1020 ns. */
  ck_assert_int_eq(processes_short_filter(res, SYN_RESULTS, 1015, buf, sizeof buf), 1);
  ck_assert_str_eq(buf, "^(copy/memcpy/N:1048576)$");
  ck_assert_int_eq(processes_short_filter(res, SYN_RESULTS, 500, buf, sizeof buf), 0);
  ck_assert_int_eq(processes_short_filter(res, SYN_RESULTS, 1e9, buf, sizeof buf), 3); /* not the failed one */
  snprintf(res[1].name, sizeof res[1].name, "odd/a.b(c)+d/N:1");
  ck_assert_int_eq(processes_short_filter(res, SYN_RESULTS, 800, buf, sizeof buf), 1);
  ck_assert_str_eq(buf, "^(odd/a\\.b\\(c\\)\\+d/N:1)$");
  ck_assert_int_eq(processes_short_filter(res, SYN_RESULTS, 1100, buf, 20), -1); /* too small */
}
END_TEST

START_TEST(the_childrens_samples_replace_ours_and_the_time_is_the_mean_of_medians) {
  char path1[4096], path2[4096];
  temp_path(path1, sizeof path1, "child1.json");
  temp_path(path2, sizeof path2, "child2.json");
  run_context ctx;
  bench_result child[SYN_RESULTS], res[SYN_RESULTS];
  char err[512] = "";
  /* Child 1 measured add_float4 as the synthetic data; child 2 40 ns slower, hotter,
   * throttled, one sample discarded. */
  heap_results(&ctx, child);
  ck_assert_msg(processes_write(path1, &child[0], 1, err, sizeof err) == 0, "%s", err);
  for (int k = 0; k < 3; k++) {
    for (size_t s = 0; s < child[0].reps[k].n; s++) child[0].reps[k].gpu_ns[s] += 40;
    child[0].reps[k].discarded = 1;
    child[0].reps[k].temp_c_max = 70;
    child[0].reps[k].sm_mhz_min = 1800;
    child[0].reps[k].throttle = 4;
  }
  ck_assert_msg(processes_write(path2, &child[0], 1, err, sizeof err) == 0, "%s", err);

  /* This process's own add_float4: 500 ns slower, other readings. None of it may remain. */
  heap_results(&ctx, res);
  for (int k = 0; k < 3; k++) {
    for (size_t s = 0; s < res[0].reps[k].n; s++) res[0].reps[k].gpu_ns[s] += 500;
    res[0].reps[k].discarded = 7;
    res[0].reps[k].temp_c_max = 90;
    res[0].reps[k].throttle = 8;
    res[0].reps[k].timed_out = 1;
  }
  ck_assert_int_eq(processes_merge(path1, res, SYN_RESULTS, err, sizeof err), 1);
  ck_assert_int_eq(processes_merge(path2, res, SYN_RESULTS, err, sizeof err), 1);
  for (int k = 0; k < 3; k++) {
    rep_result *rep = &res[0].reps[k];
    ck_assert_uint_eq(rep->n, 10);
    for (size_t s = 0; s < rep->n; s++) ck_assert(rep->gpu_ns[s] < 1500); /* none of ours */
    ck_assert_uint_eq(rep->nprocess, 2);
    ck_assert_double_eq_tol(rep->process_ns[0], 1000 + 10 * k, 1e-9);
    ck_assert_double_eq_tol(rep->process_ns[1], 1040 + 10 * k, 1e-9);
    ck_assert_uint_eq(rep->discarded, 1);
    ck_assert_int_eq(rep->timed_out, 0);
    ck_assert_uint_eq(rep->temp_c_max, 70);
    ck_assert_uint_eq(rep->sm_mhz_min, 1800);
    ck_assert_uint_eq(rep->sm_mhz_max, 1980);
    ck_assert_uint_eq(rep->throttle, 4);
    /* Two medians 40 ns apart: stddev 28.28, / sqrt(2) = 20, / mean. */
    ck_assert_double_eq_tol(rep->noise, 20.0 / (1020 + 10 * k), 1e-9);
    rep_metrics m;
    report_rep_metrics(&ctx, &res[0], rep, &m);
    ck_assert_double_eq_tol(m.real_ns, 1020 + 10 * k, 1e-9); /* not the pooled median */
  }
  /* A third process. */
  ck_assert_int_eq(processes_merge(path2, res, SYN_RESULTS, err, sizeof err), 1);
  ck_assert_uint_eq(res[0].reps[0].nprocess, 3);
  ck_assert_uint_eq(res[0].reps[0].n, 15);
  rep_metrics m;
  report_rep_metrics(&ctx, &res[0], &res[0].reps[0], &m);
  ck_assert_double_eq_tol(m.real_ns, (1000 + 1040 + 1040) / 3.0, 1e-9);
  /* Untouched: a benchmark the children did not measure. */
  ck_assert_uint_eq(res[1].reps[0].nprocess, 0);
  ck_assert_uint_eq(res[1].reps[0].n, 7);

  /* The JSON says so, and still passes the schema: real_time = mean of process_medians. */
  ctx.processes = 3;
  ctx.processes_below_s = 50e-6;
  json_t *doc = report_json(&ctx, res, SYN_RESULTS, 0);
  json_t *first = json_array_get(json_object_get(doc, "benchmarks"), 0);
  ck_assert_int_eq(json_integer_value(json_object_get(first, "processes")), 3);
  ck_assert_uint_eq(json_array_size(json_object_get(first, "process_medians")), 3);
  ck_assert_uint_eq(json_array_size(json_object_get(first, "samples")), 15);
  ck_assert_double_eq_tol(json_number_value(json_object_get(first, "real_time")), 3080 / 3.0, 1e-6);
  json_t *timing = json_object_get(json_object_get(doc, "context"), "timing");
  ck_assert_int_eq(json_integer_value(json_object_get(timing, "processes")), 3);
  ck_assert_msg(schema_validate(doc, err, sizeof err) == 0, "%s", err);
  /* A real_time that is the pooled median instead is caught. */
  json_object_set_new(first, "real_time", json_real(1040));
  ck_assert(schema_validate(doc, err, sizeof err) != 0);
  ck_assert_msg(strstr(err, "mean of process_medians") != NULL, "%s", err);
  json_decref(doc);
  free_results(child);
  free_results(res);
}
END_TEST

START_TEST(a_bad_samples_file_is_an_error_that_names_it) {
  char path[4096], err[512];
  temp_path(path, sizeof path, "bad.json");
  run_context ctx;
  bench_result res[SYN_RESULTS];
  heap_results(&ctx, res);

  ck_assert_int_eq(processes_merge("/nonexistent/samples.json", res, SYN_RESULTS, err, sizeof err), -1);
  ck_assert_msg(strstr(err, "/nonexistent/samples.json") != NULL, "%s", err);

  write_text(path, "{\"benchmarks\": [");
  ck_assert_int_eq(processes_merge(path, res, SYN_RESULTS, err, sizeof err), -1);
  ck_assert_msg(strstr(err, "not readable JSON") && strstr(err, path), "%s", err);

  write_text(path, "{\"benchmarks\": [{\"name\": \"elementwise/other/N:1\", \"reps\": []}]}");
  ck_assert_int_eq(processes_merge(path, res, SYN_RESULTS, err, sizeof err), -1);
  ck_assert_msg(strstr(err, "elementwise/other/N:1") != NULL, "%s", err);

  write_text(path, "{\"benchmarks\": [{\"name\": \"copy/memcpy/N:1048576\", \"reps\": [{}, {}]}]}");
  ck_assert_int_eq(processes_merge(path, res, SYN_RESULTS, err, sizeof err), -1);
  ck_assert_msg(strstr(err, "2 repetitions, this process 1") != NULL, "%s", err);

  write_text(path, "{\"benchmarks\": [{\"name\": \"copy/memcpy/N:1048576\", \"reps\": [{\"gpu_ns\": [1, \"x\"], "
                   "\"host_ns\": [1, 2]}]}]}");
  ck_assert_int_eq(processes_merge(path, res, SYN_RESULTS, err, sizeof err), -1);
  ck_assert_msg(strstr(err, "repetition 0") != NULL, "%s", err);
  ck_assert_uint_eq(res[1].reps[0].n, 7); /* nothing half-pooled */
  ck_assert_uint_eq(res[1].reps[0].nprocess, 0);
  free_results(res);
}
END_TEST

START_TEST(a_child_gets_the_samples_path_and_seed_and_its_status_comes_back) {
  char path[4096], err[512] = "";
  temp_path(path, sizeof path, "from-child.txt");
  setenv("BENCH_SEED", "1", 1); /* replaced, not duplicated */
  char *argv[] = {"sh", "-c",
                  "printf '%s %s' \"$BENCH_SAMPLES_OUT\" \"$BENCH_SEED\" > \"$BENCH_SAMPLES_OUT\"; "
                  "echo this goes to /dev/null; exit 3",
                  NULL};
  ck_assert_int_eq(processes_run_child("/bin/sh", argv, path, 18446744073709551557ull, err, sizeof err), 3);
  FILE *f = fopen(path, "r");
  ck_assert_ptr_nonnull(f);
  char got[4300] = "";
  ck_assert_ptr_nonnull(fgets(got, sizeof got, f));
  fclose(f);
  char want[4300];
  snprintf(want, sizeof want, "%s 18446744073709551557", path);
  ck_assert_str_eq(got, want);

  char *killed[] = {"sh", "-c", "kill -9 $$", NULL};
  ck_assert_int_eq(processes_run_child("/bin/sh", killed, path, 1, err, sizeof err), 128 + 9);
  char *none[] = {"missing", NULL};
  ck_assert_int_eq(processes_run_child("/nonexistent/bench", none, path, 1, err, sizeof err), -1);
  ck_assert_msg(strstr(err, "/nonexistent/bench") != NULL, "%s", err);
}
END_TEST

int main(void) {
  Suite *s = suite_create("processes");
  TCase *tc = tcase_create("processes");
  tcase_add_test(tc, short_filter_names_the_short_ones_escaped);
  tcase_add_test(tc, the_childrens_samples_replace_ours_and_the_time_is_the_mean_of_medians);
  tcase_add_test(tc, a_bad_samples_file_is_an_error_that_names_it);
  tcase_add_test(tc, a_child_gets_the_samples_path_and_seed_and_its_status_comes_back);
  suite_add_tcase(s, tc);
  SRunner *sr = srunner_create(s);
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed ? 1 : 0;
}
