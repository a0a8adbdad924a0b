/* CPU tests of --contexts (perf/runner/contexts): which benchmarks are short, each
 * context's measurement pooled in place of the first context's, the reported
 * time (the mean of the context medians), the noise between contexts, and the
 * JSON that says so. */
#include <check.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "perf/runner/contexts.h"
#include "perf/runner/report.h"
#include "perf/runner/reporter.h"
#include "perf/runner/schema.h"
#include "perf/runner/synthetic.h"
#include "tests/support/check_run.h"

/* The synthetic results, copied to the heap so that pooling can grow them. */
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
      free(res[i].reps[k].context_ns);
    }
    free(res[i].reps);
  }
}

START_TEST(short_means_every_repetition_under_the_limit) {
  run_context ctx;
  bench_result res[SYN_RESULTS];
  synthetic_results(&ctx, res);
  /* Medians: add_float4 1000/1010/1020 ns, memcpy 703 ns, broken failed, saxpy 2150/2200 ns. */
  ck_assert_int_eq(contexts_is_short(&res[0], 1100), 1);
  ck_assert_int_eq(contexts_is_short(&res[0], 1015), 0); /* its third repetition is 1020 ns */
  ck_assert_int_eq(contexts_is_short(&res[1], 800), 1);
  ck_assert_int_eq(contexts_is_short(&res[1], 703), 0);  /* under, not at */
  ck_assert_int_eq(contexts_is_short(&res[2], 1e12), 0); /* a failed one never is */
  ck_assert_int_eq(contexts_is_short(&res[3], 2180), 0);
  ck_assert_int_eq(contexts_is_short(&res[3], 2201), 1);
}
END_TEST

START_TEST(the_contexts_replace_the_first_and_the_time_is_the_mean_of_medians) {
  run_context ctx;
  bench_result one[SYN_RESULTS], two[SYN_RESULTS], res[SYN_RESULTS];
  char err[512] = "";
  /* Context 1 measured add_float4 as the synthetic data; context 2 40 ns slower, hotter,
   * throttled, one sample discarded. */
  heap_results(&ctx, one);
  heap_results(&ctx, two);
  for (int k = 0; k < 3; k++) {
    for (size_t s = 0; s < two[0].reps[k].n; s++) two[0].reps[k].gpu_ns[s] += 40;
    two[0].reps[k].discarded = 1;
    two[0].reps[k].temp_c_max = 70;
    two[0].reps[k].sm_mhz_min = 1800;
    two[0].reps[k].throttle = 4;
  }
  /* The first context's own add_float4: 500 ns slower, other readings. None of it may remain. */
  heap_results(&ctx, res);
  for (int k = 0; k < 3; k++) {
    for (size_t s = 0; s < res[0].reps[k].n; s++) res[0].reps[k].gpu_ns[s] += 500;
    res[0].reps[k].discarded = 7;
    res[0].reps[k].temp_c_max = 90;
    res[0].reps[k].throttle = 8;
    res[0].reps[k].timed_out = 1;
  }
  for (int k = 0; k < 3; k++) {
    ck_assert_int_eq(contexts_pool(&res[0].reps[k], &one[0].reps[k]), 0);
    ck_assert_int_eq(contexts_pool(&res[0].reps[k], &two[0].reps[k]), 0);
    rep_result *rep = &res[0].reps[k];
    ck_assert_uint_eq(rep->n, 10);
    for (size_t s = 0; s < rep->n; s++) ck_assert(rep->gpu_ns[s] < 1500); /* none of the first context's */
    ck_assert_uint_eq(rep->ncontext, 2);
    ck_assert_double_eq_tol(rep->context_ns[0], 1000 + 10 * k, 1e-9);
    ck_assert_double_eq_tol(rep->context_ns[1], 1040 + 10 * k, 1e-9);
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
  /* A third context. */
  ck_assert_int_eq(contexts_pool(&res[0].reps[0], &two[0].reps[0]), 0);
  ck_assert_uint_eq(res[0].reps[0].ncontext, 3);
  ck_assert_uint_eq(res[0].reps[0].n, 15);
  rep_metrics m;
  report_rep_metrics(&ctx, &res[0], &res[0].reps[0], &m);
  ck_assert_double_eq_tol(m.real_ns, (1000 + 1040 + 1040) / 3.0, 1e-9);
  /* A measurement without samples is refused and changes nothing. */
  rep_result empty = {0};
  ck_assert_int_eq(contexts_pool(&res[0].reps[0], &empty), -1);
  ck_assert_uint_eq(res[0].reps[0].ncontext, 3);
  /* Untouched: a benchmark that was not short. */
  ck_assert_uint_eq(res[1].reps[0].ncontext, 0);
  ck_assert_uint_eq(res[1].reps[0].n, 7);

  /* The JSON says so, and still passes the schema: real_time = mean of context_medians. */
  ctx.contexts = 3;
  ctx.contexts_below_s = 50e-6;
  ctx.long_contexts = 2;
  json_t *doc = json_report(&ctx, res, SYN_RESULTS, 0);
  json_t *first = json_array_get(json_object_get(doc, "benchmarks"), 0);
  ck_assert_int_eq(json_integer_value(json_object_get(first, "contexts")), 3);
  ck_assert_uint_eq(json_array_size(json_object_get(first, "context_medians")), 3);
  ck_assert_uint_eq(json_array_size(json_object_get(first, "samples")), 15);
  ck_assert_double_eq_tol(json_number_value(json_object_get(first, "real_time")), 3080 / 3.0, 1e-6);
  json_t *timing = json_object_get(json_object_get(doc, "context"), "timing");
  ck_assert_int_eq(json_integer_value(json_object_get(timing, "contexts")), 3);
  ck_assert_int_eq(json_integer_value(json_object_get(timing, "long_contexts")), 2); /* the gate's method check */
  ck_assert_msg(schema_validate(doc, err, sizeof err) == 0, "%s", err);
  /* A real_time that is the pooled median instead is caught. */
  json_object_set_new(first, "real_time", json_real(1040));
  ck_assert(schema_validate(doc, err, sizeof err) != 0);
  ck_assert_msg(strstr(err, "mean of context_medians") != NULL, "%s", err);
  json_decref(doc);
  free_results(one);
  free_results(two);
  free_results(res);
}
END_TEST

int main(void) {
  Suite *s = suite_create("contexts");
  TCase *tc = tcase_create("contexts");
  tcase_add_test(tc, short_means_every_repetition_under_the_limit);
  tcase_add_test(tc, the_contexts_replace_the_first_and_the_time_is_the_mean_of_medians);
  suite_add_tcase(s, tc);
  return run_suite(s);
}
