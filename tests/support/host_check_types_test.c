/* CPU tests of host_check's element types: half conversions, typed random fills, typed poison, and
 * comparison of every type against an fp64 (or exact) reference, exact or within a tolerance. */
#define _POSIX_C_SOURCE 200809L
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tests/support/host_check.h"
#include "tests/support/check_run.h"

START_TEST(sizes_and_names) {
  static const size_t size[ELEM_NTYPES] = {sizeof(float), sizeof(uint16_t), sizeof(int32_t), sizeof(uint8_t)};
  static const char *const name[ELEM_NTYPES] = {"f32", "f16", "i32", "u8"};
  for (int t = 0; t < ELEM_NTYPES; t++) {
    ck_assert_uint_eq(elem_size((elem_type)t), size[t]);
    ck_assert_str_eq(elem_name((elem_type)t), name[t]);
  }
}
END_TEST

START_TEST(half_to_float_known_values) {
  ck_assert_float_eq(half_to_float(0x3C00), 1.0f);
  ck_assert_float_eq(half_to_float(0xC000), -2.0f);
  ck_assert_float_eq(half_to_float(0x7BFF), 65504.0f);
  ck_assert_float_eq(half_to_float(0x0400), 0x1p-14f); /* smallest normal */
  ck_assert_float_eq(half_to_float(0x03FF), 1023 * 0x1p-24f);
  ck_assert_float_eq(half_to_float(0x0001), 0x1p-24f); /* smallest subnormal */
  ck_assert_float_eq(half_to_float(0x3555), 0x1.554p-2f);
  ck_assert(half_to_float(0x8000) == 0.0f && signbit(half_to_float(0x8000)));
  ck_assert(isinf(half_to_float(0x7C00)) && half_to_float(0xFC00) < 0);
  ck_assert(isnan(half_to_float(0x7E00)) && isnan(half_to_float(0x7C01)));
}
END_TEST

/* Every one of the 65536 halves, NaNs with their payloads included, comes back bit for bit. */
START_TEST(half_round_trips_every_bit_pattern) {
  for (uint32_t h = 0; h <= 0xFFFF; h++) {
    uint16_t back = half_from_float(half_to_float((uint16_t)h));
    ck_assert_msg(back == h, "0x%04x -> %a -> 0x%04x", (unsigned)h, half_to_float((uint16_t)h), (unsigned)back);
  }
}
END_TEST

/* Between every two neighbouring finite halves (subnormal, normal, across binades, either sign): the
 * midpoint goes to the even one, a float either side of it to the nearer. */
START_TEST(half_from_float_rounds_to_nearest_even) {
  for (uint16_t h = 0; h < 0x7BFF; h++) {
    float lo = half_to_float(h), hi = half_to_float((uint16_t)(h + 1)), mid = (lo + hi) / 2; /* exact in float */
    uint16_t even = (h & 1) ? (uint16_t)(h + 1) : h;
    ck_assert_msg(half_from_float(mid) == even, "midpoint %a of 0x%04x: 0x%04x", mid, h, half_from_float(mid));
    ck_assert_uint_eq(half_from_float(nextafterf(mid, 0.0f)), h);
    ck_assert_uint_eq(half_from_float(nextafterf(mid, INFINITY)), h + 1);
    ck_assert_uint_eq(half_from_float(-mid), 0x8000u | even);
  }
}
END_TEST

START_TEST(half_from_float_overflow_underflow_and_nan) {
  ck_assert_uint_eq(half_from_float(65519.0f), 0x7BFF); /* below the midpoint to 2^16 */
  ck_assert_uint_eq(half_from_float(65520.0f), 0x7C00); /* the midpoint: ties to even, 2^16, infinity */
  ck_assert_uint_eq(half_from_float(70000.0f), 0x7C00); /* the first binade past the halves' */
  ck_assert_uint_eq(half_from_float(-1e5f), 0xFC00);
  ck_assert_uint_eq(half_from_float(1e30f), 0x7C00);
  ck_assert_uint_eq(half_from_float(-INFINITY), 0xFC00);
  ck_assert_uint_eq(half_from_float(0x1p-25f), 0x0000); /* half the smallest subnormal: ties to 0 */
  ck_assert_uint_eq(half_from_float(nextafterf(0x1p-25f, 1.0f)), 0x0001);
  ck_assert_uint_eq(half_from_float(0x1.8p-24f), 0x0002); /* 1.5 units: ties to even 2 */
  ck_assert_uint_eq(half_from_float(1e-30f), 0x0000);
  ck_assert_uint_eq(half_from_float(-0.0f), 0x8000);
  uint16_t nan = half_from_float(NAN);
  ck_assert_msg((nan & 0x7C00) == 0x7C00 && (nan & 0x3FF) != 0, "NaN -> 0x%04x", nan);
}
END_TEST

/* Integers: every value of [lo, hi] comes out, both ends included, none outside; the same seed gives the
 * same values. */
START_TEST(integer_fill_covers_the_closed_range) {
  enum { N = 100000 };
  static int32_t x[N], y[N];
  test_rng r, r2;
  rng_seed(&r, 3);
  rng_seed(&r2, 3);
  rng_fill(ELEM_I32, x, N, -5, 5, &r);
  rng_fill(ELEM_I32, y, N, -5, 5, &r2);
  ck_assert(memcmp(x, y, sizeof x) == 0);
  int seen[11] = {0};
  for (int i = 0; i < N; i++) {
    ck_assert(x[i] >= -5 && x[i] <= 5);
    seen[x[i] + 5]++;
  }
  for (int k = 0; k < 11; k++) ck_assert_int_gt(seen[k], N / 11 * 9 / 10);

  static uint8_t b[N];
  int bytes[256] = {0};
  rng_fill(ELEM_U8, b, N, 0, 255, &r);
  for (int i = 0; i < N; i++) bytes[b[i]]++;
  for (int k = 0; k < 256; k++) ck_assert_int_gt(bytes[k], N / 256 / 2);
}
END_TEST

/* Bounds beyond the type are clamped to it: a u8 fill of [-10, 300] still reaches 0 and 255 and
 * nothing wraps around; an i32 fill of the whole range stays in it. */
START_TEST(integer_fill_clamps_to_the_type) {
  enum { N = 20000 };
  static uint8_t b[N];
  test_rng r;
  rng_seed(&r, 4);
  rng_fill(ELEM_U8, b, N, -10, 300, &r);
  int zeros = 0, tops = 0;
  for (int i = 0; i < N; i++) {
    zeros += b[i] == 0;
    tops += b[i] == 255;
  }
  ck_assert_int_gt(zeros, 0);
  ck_assert_int_gt(tops, 0);
  ck_assert_int_lt(zeros, N / 256 * 2); /* not the clamped mass of [-10, 0] */
  static int32_t x[N];
  rng_fill(ELEM_I32, x, N, -1e12, 1e12, &r);
  int negative = 0;
  for (int i = 0; i < N; i++) negative += x[i] < 0;
  ck_assert_int_gt(negative, N * 45 / 100);
  ck_assert_int_lt(negative, N * 55 / 100);
}
END_TEST

/* Large fills are split into chunks on threads: a byte fill is fixed by the seed too, chunks differ. */
START_TEST(large_byte_fill_is_fixed_by_the_seed) {
  enum { N = (3 << 20) + 5 };
  uint8_t *x = malloc(N), *y = malloc(N);
  ck_assert(x && y);
  test_rng r1, r2;
  rng_seed(&r1, 42);
  rng_seed(&r2, 42);
  rng_fill(ELEM_U8, x, N, 0, 255, &r1);
  rng_fill(ELEM_U8, y, N, 0, 255, &r2);
  ck_assert(memcmp(x, y, N) == 0);
  ck_assert(memcmp(x, x + (1 << 20), 1000) != 0);
  free(x);
  free(y);
}
END_TEST

/* Halves: in [lo, hi], real halves (no NaN), spread over the range, not all one value. */
START_TEST(half_fill_stays_in_range) {
  enum { N = 50000 };
  static uint16_t h[N];
  test_rng r;
  rng_seed(&r, 8);
  rng_fill(ELEM_F16, h, N, -2.0, 2.0, &r);
  double sum = 0;
  int differs = 0;
  for (int i = 0; i < N; i++) {
    float v = half_to_float(h[i]);
    ck_assert_msg(v >= -2.0f && v <= 2.0f, "0x%04x = %g", h[i], v);
    sum += v;
    differs += h[i] != h[0];
  }
  ck_assert_double_lt(fabs(sum / N), 0.05);
  ck_assert_int_gt(differs, N / 2);
}
END_TEST

/* The float fill is the F32 case of rng_fill: the same values from the same seed. */
START_TEST(float_fill_is_the_f32_case) {
  enum { N = 1000 };
  float x[N], y[N];
  test_rng r1, r2;
  rng_seed(&r1, 9);
  rng_seed(&r2, 9);
  fill_uniform(x, N, -1.0f, 1.0f, &r1);
  rng_fill(ELEM_F32, y, N, -1.0, 1.0, &r2);
  ck_assert(memcmp(x, y, sizeof x) == 0);
}
END_TEST

/* Every type's poison is all bits set: NaN for the floats, -1 and 255 for the integers; only the
 * elements asked for are poisoned. */
START_TEST(poison_sets_every_bit_of_the_elements_asked_for) {
  for (int t = 0; t < ELEM_NTYPES; t++) {
    unsigned char buf[4 * 8];
    memset(buf, 0, sizeof buf);
    poison_elems((elem_type)t, buf, 3);
    for (size_t i = 0; i < 3; i++) ck_assert(is_poison_elem((elem_type)t, buf, i));
    ck_assert(!is_poison_elem((elem_type)t, buf, 3));
    ck_assert_uint_eq(buf[3 * elem_size((elem_type)t)], 0);
  }
  uint16_t h;
  poison_elems(ELEM_F16, &h, 1);
  ck_assert(isnan(half_to_float(h)));
  int32_t i;
  poison_elems(ELEM_I32, &i, 1);
  ck_assert_int_eq(i, -1);
  uint8_t b = 0xFE;
  ck_assert(!is_poison_elem(ELEM_U8, &b, 0));
}
END_TEST

/* Exact integer checks: a single wrong element among many is caught, at its index, whichever type;
 * an abs tolerance of 1 lets an off-by-one through. */
START_TEST(exact_integer_compare_catches_one_wrong_element) {
  enum { N = 5000 };
  static int32_t x[N];
  static uint8_t b[N];
  static double want_x[N], want_b[N];
  for (int i = 0; i < N; i++) {
    x[i] = i * 7 - 1000;
    b[i] = (uint8_t)(i * 31);
    want_x[i] = x[i];
    want_b[i] = b[i];
  }
  ck_assert_uint_eq(compare_elems(ELEM_I32, x, want_x, NULL, N, TOL_EXACT).bad, 0);
  ck_assert_uint_eq(compare_elems(ELEM_U8, b, want_b, NULL, N, TOL_EXACT).bad, 0);
  x[4321] += 1;
  b[17] ^= 1;
  compare_report r = compare_elems(ELEM_I32, x, want_x, NULL, N, TOL_EXACT);
  ck_assert_uint_eq(r.bad, 1);
  ck_assert_uint_eq(r.first_bad, 4321);
  ck_assert_double_eq(r.first_got, want_x[4321] + 1);
  r = compare_elems(ELEM_U8, b, want_b, NULL, N, TOL_EXACT);
  ck_assert_uint_eq(r.bad, 1);
  ck_assert_uint_eq(r.first_bad, 17);
  ck_assert_uint_eq(compare_elems(ELEM_I32, x, want_x, NULL, N, (tolerance){.abs = 1}).bad, 0);
  /* Beyond 2^24 too: no rounding through float, where 2^24 + 1 would read as 2^24. */
  int32_t big = (1 << 24) + 1;
  double want_big = 1 << 24;
  ck_assert_uint_eq(compare_elems(ELEM_I32, &big, &want_big, NULL, 1, TOL_EXACT).bad, 1);
}
END_TEST

/* An integer left at the poison is reported as such. */
START_TEST(unwritten_integer_is_named_in_the_report) {
  int32_t counts[4] = {3, 0, 5, 0};
  double want[4] = {3, 0, 5, 1};
  poison_elems(ELEM_I32, &counts[3], 1);
  compare_report r = compare_elems(ELEM_I32, counts, want, NULL, 4, TOL_EXACT);
  ck_assert_uint_eq(r.bad, 1);
  char line[256];
  format_report(&r, line, sizeof line);
  ck_assert_msg(strstr(line, "first_bad=[3] got=-1 (all bits set, the poison: never written?) want=1"), "%s", line);
}
END_TEST

/* ulps: one unit in the last place of the result type at want, float and half alike, at 0 the
 * subnormal spacing; and abs, rel and ulps add up. */
START_TEST(ulps_tolerance_is_in_units_of_the_result_type) {
  double want[1] = {1.0};
  float f[1] = {nextafterf(1.0f, 2.0f)}; /* 1 + 2^-23 */
  ck_assert_uint_eq(compare_f32(f, want, NULL, 1, TOL_EXACT).bad, 1);
  ck_assert_uint_eq(compare_f32(f, want, NULL, 1, (tolerance){.ulps = 1}).bad, 0);
  f[0] = 1.0f + 0x1p-22f; /* 2 ulps */
  ck_assert_uint_eq(compare_f32(f, want, NULL, 1, (tolerance){.ulps = 1}).bad, 1);
  ck_assert_uint_eq(compare_f32(f, want, NULL, 1, (tolerance){.ulps = 1, .abs = 0x1p-23}).bad, 0);
  ck_assert_uint_eq(compare_f32(f, want, NULL, 1, (tolerance){.ulps = 1, .rel = 0x1p-23}).bad, 0);

  uint16_t h[1] = {0x3C01}; /* 1 + 2^-10 */
  ck_assert_uint_eq(compare_elems(ELEM_F16, h, want, NULL, 1, TOL_EXACT).bad, 1);
  ck_assert_uint_eq(compare_elems(ELEM_F16, h, want, NULL, 1, (tolerance){.ulps = 1}).bad, 0);
  h[0] = 0x3C02;
  ck_assert_uint_eq(compare_elems(ELEM_F16, h, want, NULL, 1, (tolerance){.ulps = 1}).bad, 1);

  double zero[1] = {0.0}, big[1] = {1024.0};
  float tiny[1] = {0x1p-149f};
  ck_assert_uint_eq(compare_f32(tiny, zero, NULL, 1, (tolerance){.ulps = 1}).bad, 0);
  tiny[0] = 0x1p-148f;
  ck_assert_uint_eq(compare_f32(tiny, zero, NULL, 1, (tolerance){.ulps = 1}).bad, 1);
  h[0] = 0x6401; /* 1025: a half's ulp at 1024 is 1 */
  ck_assert_uint_eq(compare_elems(ELEM_F16, h, big, NULL, 1, (tolerance){.ulps = 1}).bad, 0);
  ck_assert_uint_eq(compare_elems(ELEM_F16, h, big, NULL, 1, (tolerance){.ulps = 0.5}).bad, 1);
}
END_TEST

/* Halves: NaN and the poison never pass, the poison is named, and rel works as for floats. */
START_TEST(half_compare_rejects_nan_and_names_the_poison) {
  uint16_t h[3] = {half_from_float(0.5f), half_from_float(0.25f), 0};
  double want[3] = {0.5, 0.25004, 0};
  poison_elems(ELEM_F16, &h[2], 1);
  compare_report r = compare_elems(ELEM_F16, h, want, NULL, 3, (tolerance){.rel = 1e-3, .abs = 1e30});
  ck_assert_uint_eq(r.bad, 1);
  ck_assert_uint_eq(r.first_bad, 2);
  char line[256];
  format_report(&r, line, sizeof line);
  ck_assert_msg(strstr(line, "(poison: never written)"), "%s", line);
  ck_assert_uint_eq(compare_elems(ELEM_F16, h, want, NULL, 2, (tolerance){.rel = 1e-3}).bad, 0);
  ck_assert_uint_eq(compare_elems(ELEM_F16, h, want, NULL, 2, (tolerance){.rel = 1e-5}).bad, 1);
}
END_TEST

int main(void) {
  Suite *s = suite_create("host_check_types");
  TCase *tc = tcase_create("types");
  tcase_set_timeout(tc, 30); /* the 3 Mi-element fill on a loaded 2-core CI machine */
  tcase_add_test(tc, sizes_and_names);
  tcase_add_test(tc, half_to_float_known_values);
  tcase_add_test(tc, half_round_trips_every_bit_pattern);
  tcase_add_test(tc, half_from_float_rounds_to_nearest_even);
  tcase_add_test(tc, half_from_float_overflow_underflow_and_nan);
  tcase_add_test(tc, integer_fill_covers_the_closed_range);
  tcase_add_test(tc, integer_fill_clamps_to_the_type);
  tcase_add_test(tc, large_byte_fill_is_fixed_by_the_seed);
  tcase_add_test(tc, half_fill_stays_in_range);
  tcase_add_test(tc, float_fill_is_the_f32_case);
  tcase_add_test(tc, poison_sets_every_bit_of_the_elements_asked_for);
  tcase_add_test(tc, exact_integer_compare_catches_one_wrong_element);
  tcase_add_test(tc, unwritten_integer_is_named_in_the_report);
  tcase_add_test(tc, ulps_tolerance_is_in_units_of_the_result_type);
  tcase_add_test(tc, half_compare_rejects_nan_and_names_the_poison);
  suite_add_tcase(s, tc);
  return run_suite(s);
}
