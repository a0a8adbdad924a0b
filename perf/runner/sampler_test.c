/* CPU tests of the timing loop's sampling policy (perf/runner/sampler), driven by
 * made-up samples, clocks and NVML readings. */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "perf/runner/sampler.h"
#include "tests/support/check_run.h"

static const sampler_cfg kNoNvml = {.min_samples = 10, .min_time_s = 0.1, .max_noise = 0.003, .timeout_s = 10};

static void free_rep(rep_result *rep) {
  free(rep->gpu_ns);
  free(rep->host_ns);
}

START_TEST(stops_when_count_and_time_are_reached) {
  sampler s;
  rep_result rep;
  sampler_init(&s, &kNoNvml, &rep, 0);
  double now = 0;
  int n = 0;
  do {
    now += 0.002;
    ck_assert_int_eq(sampler_add(&s, 1e6, 5e3, now), 0); /* 1 ms each, identical: no noise */
    n++;
  } while (!sampler_done(&s, now));
  ck_assert_int_eq(n, 100); /* 0.1 s of GPU time */
  ck_assert_uint_eq(rep.n, 100);
  ck_assert_int_eq(rep.timed_out, 0);
  ck_assert_double_eq(rep.noise, 0);
  ck_assert_int_eq(rep.clocks_valid, 0);
  ck_assert_double_eq(rep.host_ns[99], 5e3);
  char err[256];
  ck_assert_int_eq(sampler_finish(&s, 0.7, 1980, err, sizeof err), 0);
  free_rep(&rep);
}
END_TEST

START_TEST(min_samples_dominates_for_long_kernels) {
  sampler s;
  rep_result rep;
  sampler_init(&s, &kNoNvml, &rep, 0);
  int n = 0;
  while (1) {
    sampler_add(&s, 50e6, 1, n * 0.06); /* 50 ms: min_time met at once */
    n++;
    if (sampler_done(&s, n * 0.06)) break;
  }
  ck_assert_int_eq(n, 10);
  free_rep(&rep);
}
END_TEST

/* Samples of a 7 us kernel, 10 us apart, until the sampler is done; returns how many. */
static int samples_until_done(const sampler_cfg *cfg, rep_result *rep) {
  sampler s;
  sampler_init(&s, cfg, rep, 0);
  int n = 0;
  do {
    n++;
    sampler_add(&s, 7e3 + (n % 7), 1, n * 1e-5);
  } while (!sampler_done(&s, n * 1e-5));
  return n;
}

/* A context of --contexts takes at most max_samples: a 7 us kernel would need about 14 000
 * samples for 0.1 s. min_samples still comes first. */
START_TEST(max_samples_caps_a_short_kernel) {
  sampler_cfg cfg = kNoNvml;
  cfg.max_noise = INFINITY;
  cfg.max_samples = 200;
  rep_result rep;
  ck_assert_int_eq(samples_until_done(&cfg, &rep), 200);
  ck_assert_int_eq(rep.timed_out, 0);
  free_rep(&rep);

  cfg.min_samples = 300;
  ck_assert_int_eq(samples_until_done(&cfg, &rep), 300);
  free_rep(&rep);
}
END_TEST

START_TEST(noisy_samples_run_until_the_standard_error_is_small) {
  sampler_cfg cfg = kNoNvml;
  cfg.min_samples = 2;
  cfg.min_time_s = 0;
  cfg.max_noise = 0.01;
  sampler s;
  rep_result rep;
  sampler_init(&s, &cfg, &rep, 0);
  int n = 0;
  do {
    sampler_add(&s, n % 2 ? 1100 : 900, 1, 0);
    n++;
  } while (!sampler_done(&s, 0));
  /* stddev ~ 100 around a mean of 1000: 0.1 / sqrt(n) <= 0.01 needs n of about 100 */
  ck_assert_int_ge(n, 100);
  ck_assert_int_le(n, 103);
  ck_assert_double_le(rep.noise, 0.01);
  free_rep(&rep);
}
END_TEST

START_TEST(timeout_ends_sampling_and_is_reported) {
  sampler_cfg cfg = kNoNvml;
  cfg.timeout_s = 5;
  sampler s;
  rep_result rep;
  sampler_init(&s, &cfg, &rep, 100);
  int n = 0;
  double now = 100;
  do {
    now += 1;
    sampler_add(&s, n % 2 ? 2000 : 1000, 1, now); /* far too noisy to converge */
    n++;
  } while (!sampler_done(&s, now));
  ck_assert_int_eq(n, 5);
  ck_assert_int_eq(rep.timed_out, 1);
  ck_assert_uint_eq(rep.n, 5);
  free_rep(&rep);
}
END_TEST

static const sampler_cfg kNvml = {.min_samples = 4,
                                  .min_time_s = 0,
                                  .max_noise = 0.5,
                                  .timeout_s = 100,
                                  .clock_floor_mhz = 0.7 * 1980,
                                  .readings = 1,
                                  .nvml_interval_s = 1.0};

static nvml_reading reading(unsigned sm) {
  return (nvml_reading){.sm_mhz = sm, .mem_mhz = 2619, .temp_c = sm / 30, .reasons = sm < 1000 ? 0x20 : 0};
}

START_TEST(low_clock_discards_the_samples_before_the_reading) {
  sampler s;
  rep_result rep;
  sampler_init(&s, &kNvml, &rep, 0);
  /* Readings come due 1 s after the last one; samples every 0.3 s: batches of 4 (due at 1.2, 2.4, 3.6 s). */
  unsigned clocks[] = {900, 1980, 1950};
  int batch = 0, added = 0;
  double now = 0;
  while (batch < 3) {
    now += 0.3;
    int due = sampler_add(&s, 1000 + added, 1, now);
    added++;
    ck_assert_int_eq(sampler_done(&s, now), 0); /* never done with a verdict pending */
    if (due) {
      nvml_reading rd = reading(clocks[batch++]);
      sampler_reading(&s, &rd, now);
    }
  }
  ck_assert_int_eq(added, 12);
  ck_assert_uint_eq(rep.discarded, 4);
  ck_assert_uint_eq(rep.n, 8);
  ck_assert_double_eq(rep.gpu_ns[0], 1004); /* the first kept sample is the fifth taken */
  ck_assert_int_eq(rep.clocks_valid, 1);
  ck_assert_uint_eq(rep.sm_mhz_min, 1950); /* the discarded batch's clock is not the kept samples' */
  ck_assert_uint_eq(rep.sm_mhz_max, 1980);
  ck_assert_uint_eq(rep.throttle, 0);
  ck_assert_uint_eq(rep.temp_c_max, 66);
  ck_assert(sampler_done(&s, now));
  free_rep(&rep);
}
END_TEST

START_TEST(failed_reading_keeps_the_samples) {
  sampler s;
  rep_result rep;
  sampler_init(&s, &kNvml, &rep, 0);
  for (int i = 1; i <= 4; i++) {
    if (sampler_add(&s, 1000, 1, i * 0.3)) sampler_reading(&s, NULL, i * 0.3);
  }
  ck_assert_uint_eq(rep.n, 4);
  ck_assert_uint_eq(rep.discarded, 0);
  ck_assert_int_eq(rep.clocks_valid, 0);
  ck_assert(sampler_done(&s, 1.2));
  free_rep(&rep);
}
END_TEST

START_TEST(no_filter_keeps_low_clock_samples_but_records_them) {
  sampler_cfg cfg = kNvml;
  cfg.clock_floor_mhz = 0; /* --min_clock_ratio=0 */
  cfg.nvml_interval_s = 0; /* read after every sample */
  sampler s;
  rep_result rep;
  sampler_init(&s, &cfg, &rep, 0);
  for (int i = 0; i < 4; i++) {
    ck_assert_int_eq(sampler_add(&s, 1000, 1, i), 1);
    nvml_reading rd = reading(i == 2 ? 345 : 1980);
    sampler_reading(&s, &rd, i);
  }
  ck_assert_uint_eq(rep.n, 4);
  ck_assert_uint_eq(rep.sm_mhz_min, 345);
  ck_assert_uint_eq(rep.throttle, 0x20);
  free_rep(&rep);
}
END_TEST

START_TEST(everything_discarded_until_timeout_is_an_error) {
  sampler_cfg cfg = kNvml;
  cfg.timeout_s = 2;
  sampler s;
  rep_result rep;
  sampler_init(&s, &cfg, &rep, 0);
  double now = 0;
  do {
    now += 0.25;
    if (sampler_add(&s, 1000, 1, now)) {
      nvml_reading rd = reading(600);
      sampler_reading(&s, &rd, now);
    }
  } while (!sampler_done(&s, now));
  ck_assert_int_eq(rep.timed_out, 1);
  ck_assert_uint_eq(rep.n, 0);
  ck_assert_uint_eq(rep.discarded, 8);
  char err[512] = "";
  ck_assert_int_eq(sampler_finish(&s, 0.7, 1980, err, sizeof err), -1);
  ck_assert_ptr_nonnull(strstr(err, "all 8 samples discarded"));
  ck_assert_ptr_nonnull(strstr(err, "SM clock 600 MHz"));
  ck_assert_ptr_nonnull(strstr(err, "--min_clock_ratio=0"));
  free_rep(&rep);
}
END_TEST

START_TEST(single_sample_noise_is_finite) {
  sampler_cfg cfg = kNoNvml;
  cfg.min_samples = 1;
  cfg.min_time_s = 0;
  cfg.timeout_s = 0; /* the first sample already exceeds it */
  sampler s;
  rep_result rep;
  sampler_init(&s, &cfg, &rep, 0);
  sampler_add(&s, 1000, 1, 1);
  ck_assert(sampler_done(&s, 1));
  char err[256];
  ck_assert_int_eq(sampler_finish(&s, 0.7, 1980, err, sizeof err), 0);
  ck_assert(isfinite(rep.noise));
  free_rep(&rep);
}
END_TEST

int main(void) {
  Suite *s = suite_create("sampler");
  TCase *tc = tcase_create("sampler");
  tcase_add_test(tc, stops_when_count_and_time_are_reached);
  tcase_add_test(tc, min_samples_dominates_for_long_kernels);
  tcase_add_test(tc, max_samples_caps_a_short_kernel);
  tcase_add_test(tc, noisy_samples_run_until_the_standard_error_is_small);
  tcase_add_test(tc, timeout_ends_sampling_and_is_reported);
  tcase_add_test(tc, low_clock_discards_the_samples_before_the_reading);
  tcase_add_test(tc, failed_reading_keeps_the_samples);
  tcase_add_test(tc, no_filter_keeps_low_clock_samples_but_records_them);
  tcase_add_test(tc, everything_discarded_until_timeout_is_an_error);
  tcase_add_test(tc, single_sample_noise_is_finite);
  suite_add_tcase(s, tc);
  return run_suite(s);
}
