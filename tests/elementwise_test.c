/* Correctness of kernels/elementwise against an fp64 CPU reference.
 * Every size below is exercised for every variant; add_float4 and saxpy_float4
 * also with each misalignment of their pointers, the same on all or mixed.
 * add's output is poisoned before each run (saxpy's y is an input too), every
 * element is checked, and poisoned guard zones catch writes past either end. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "kernels/elementwise/elementwise.h"
#include "tests/support/gpu_check.h"
#include "tests/support/host_check.h"

/* Not multiples of the block (256) or the vector width (4); primes among them. */
static const size_t kSizes[] = {0, 1, 3, 4, 5, 31, 257, 4097, 4099, 65537, 1000003, 16777259};
#define NSIZES (int)(sizeof kSizes / sizeof kSizes[0])

typedef cudaError_t (*add_fn)(const float *, const float *, float *, size_t, cudaStream_t);

/* c = a + b is one correctly rounded float add: relative error <= 2^-24. */
static void check_add(const char *variant, add_fn fn, size_t n, size_t off_a, size_t off_b, size_t off_c) {
  test_rng rng;
  rng_seed(&rng, test_seed() ^ (n * 1315423911u + off_a * 7 + off_b * 11 + off_c * 13));
  float *a = malloc((n + 1) * sizeof(float)), *b = malloc((n + 1) * sizeof(float)),
        *c = malloc((n + 1) * sizeof(float));
  double *want = malloc((n + 1) * sizeof(double));
  ck_assert(a && b && c && want);
  fill_uniform(a, n, -1.0f, 1.0f, &rng);
  fill_uniform(b, n, -1.0f, 1.0f, &rng);
  for (size_t i = 0; i < n; i++) want[i] = (double)a[i] + (double)b[i];

  guarded_buf da = gbuf_alloc(n, off_a), db = gbuf_alloc(n, off_b), dc = gbuf_alloc(n, off_c);
  gbuf_upload(&da, a);
  gbuf_upload(&db, b);
  CUDA_OK(fn(da.ptr, db.ptr, dc.ptr, n, 0));
  CUDA_OK(cudaDeviceSynchronize());
  gbuf_download(&dc, c);

  compare_report r = compare_f32(c, want, NULL, n, FLOAT_UNIT_ROUNDOFF, 0.0);
  char line[256];
  format_report(&r, line, sizeof line);
  printf("%-10s n=%-9zu offsets a=%zu b=%zu c=%zu: %s %s\n", variant, n, off_a, off_b, off_c, line,
         r.bad ? "FAIL" : "ok");
  ck_assert_msg(r.bad == 0, "%s n=%zu offsets %zu/%zu/%zu: %s", variant, n, off_a, off_b, off_c, line);
  gbuf_free(&da);
  gbuf_free(&db);
  gbuf_free(&dc);
  free(a);
  free(b);
  free(c);
  free(want);
}

START_TEST(add_all_sizes) { check_add("add", ew_add, kSizes[_i], 0, 0, 0); }
END_TEST

START_TEST(add_float4_aligned) { check_add("add_float4", ew_add_float4, kSizes[_i], 0, 0, 0); }
END_TEST

/* Same misalignment on all three pointers: the vector body starts after a scalar head. */
START_TEST(add_float4_same_offset) {
  for (size_t off = 1; off < 4; off++) check_add("add_float4", ew_add_float4, kSizes[_i], off, off, off);
}
END_TEST

/* Different misalignments cannot share a float4 index: the scalar path must take over. */
START_TEST(add_float4_mixed_offsets) {
  check_add("add_float4", ew_add_float4, kSizes[_i], 1, 2, 3);
  check_add("add_float4", ew_add_float4, kSizes[_i], 0, 1, 0);
}
END_TEST

typedef cudaError_t (*saxpy_fn)(float, const float *, float *, size_t, cudaStream_t);

/* y = alpha*x + y: the product may round before the add (or fuse with it), so
 * the error is bounded relative to |alpha*x| + |y|, not to a result that may
 * cancel. Unfused, with round-to-nearest relative errors of at most u/(1+u)
 * (u = 2^-24) per operation: |err| <= u/(1+u) (|alpha x| + |fl(alpha x) + y|)
 * < 2u (|alpha x| + |y|); fused (one rounding, as cuBLAS may do): <= u |alpha x + y|.
 * The fp64 reference is exact up to 2^-53 relative, far inside that margin. */
static void check_saxpy(const char *variant, saxpy_fn fn, size_t n, size_t off_x, size_t off_y) {
  test_rng rng;
  rng_seed(&rng, test_seed() ^ (n * 2654435761u + off_x * 7 + off_y * 11));
  float alpha = (float)(4.0 * rng_uniform(&rng) - 2.0);
  float *x = malloc((n + 1) * sizeof(float)), *y = malloc((n + 1) * sizeof(float));
  double *want = malloc((n + 1) * sizeof(double)), *scale = malloc((n + 1) * sizeof(double));
  ck_assert(x && y && want && scale);
  fill_uniform(x, n, -1.0f, 1.0f, &rng);
  fill_uniform(y, n, -1.0f, 1.0f, &rng);
  for (size_t i = 0; i < n; i++) {
    want[i] = (double)alpha * x[i] + y[i];
    scale[i] = fabs((double)alpha * x[i]) + fabs((double)y[i]);
  }
  guarded_buf dx = gbuf_alloc(n, off_x), dy = gbuf_alloc(n, off_y);
  gbuf_upload(&dx, x);
  gbuf_upload(&dy, y);
  CUDA_OK(fn(alpha, dx.ptr, dy.ptr, n, 0));
  CUDA_OK(cudaDeviceSynchronize());
  gbuf_download(&dy, y);
  compare_report r = compare_f32(y, want, scale, n, 2 * FLOAT_UNIT_ROUNDOFF, 0.0);
  char line[256];
  format_report(&r, line, sizeof line);
  printf("%-12s n=%-9zu offsets x=%zu y=%zu alpha=%g: %s %s\n", variant, n, off_x, off_y, alpha, line,
         r.bad ? "FAIL" : "ok");
  ck_assert_msg(r.bad == 0, "%s n=%zu offsets %zu/%zu: %s", variant, n, off_x, off_y, line);
  gbuf_free(&dx);
  gbuf_free(&dy);
  free(x);
  free(y);
  free(want);
  free(scale);
}

START_TEST(saxpy_all_sizes) {
  check_saxpy("saxpy", ew_saxpy, kSizes[_i], 0, 0);
  check_saxpy("saxpy", ew_saxpy, kSizes[_i], 1, 1);
}
END_TEST

START_TEST(saxpy_float4_aligned) { check_saxpy("saxpy_float4", ew_saxpy_float4, kSizes[_i], 0, 0); }
END_TEST

/* Same misalignment on x and y: a scalar head of 4 - off elements, then vectors. */
START_TEST(saxpy_float4_same_offset) {
  for (size_t off = 1; off < 4; off++) check_saxpy("saxpy_float4", ew_saxpy_float4, kSizes[_i], off, off);
}
END_TEST

/* x and y at different offsets: the scalar path must take over (whichever is the aligned one). */
START_TEST(saxpy_float4_mixed_offsets) {
  check_saxpy("saxpy_float4", ew_saxpy_float4, kSizes[_i], 1, 2);
  check_saxpy("saxpy_float4", ew_saxpy_float4, kSizes[_i], 0, 1);
  check_saxpy("saxpy_float4", ew_saxpy_float4, kSizes[_i], 3, 0);
}
END_TEST

/* The library reference must be right before its timings mean anything. */
START_TEST(saxpy_cublas_all_sizes) {
  check_saxpy("cublas_saxpy", ew_saxpy_cublas, kSizes[_i], 0, 0);
  check_saxpy("cublas_saxpy", ew_saxpy_cublas, kSizes[_i], 1, 2);
}
END_TEST

/* Bad arguments are reported, never launched; n == 0 accepts NULL. */
START_TEST(rejects_bad_arguments) {
  float *d;
  CUDA_OK(cudaMalloc((void **)&d, 64 * sizeof(float)));
  ck_assert_int_eq(ew_add(NULL, NULL, NULL, 0, 0), cudaSuccess);
  ck_assert_int_eq(ew_add_float4(NULL, NULL, NULL, 0, 0), cudaSuccess);
  ck_assert_int_eq(ew_saxpy(1.0f, NULL, NULL, 0, 0), cudaSuccess);
  ck_assert_int_eq(ew_saxpy_float4(1.0f, NULL, NULL, 0, 0), cudaSuccess);
  ck_assert_int_eq(ew_saxpy_cublas(1.0f, NULL, NULL, 0, 0), cudaSuccess);
  ck_assert_int_eq(ew_add(d, NULL, d, 8, 0), cudaErrorInvalidValue);
  ck_assert_int_eq(ew_add_float4(d, d, NULL, 8, 0), cudaErrorInvalidValue);
  ck_assert_int_eq(ew_saxpy(1.0f, NULL, d, 8, 0), cudaErrorInvalidValue);
  ck_assert_int_eq(ew_saxpy_float4(1.0f, NULL, d, 8, 0), cudaErrorInvalidValue);
  ck_assert_int_eq(ew_saxpy_float4(1.0f, d, NULL, 8, 0), cudaErrorInvalidValue);
  ck_assert_int_eq(ew_saxpy_cublas(1.0f, NULL, d, 8, 0), cudaErrorInvalidValue);
  ck_assert_int_eq(ew_saxpy_cublas(1.0f, d, NULL, 8, 0), cudaErrorInvalidValue);
  const float *odd = (const float *)((const char *)d + 2);
  ck_assert_int_eq(ew_add_float4(odd, d, d, 8, 0), cudaErrorMisalignedAddress);
  ck_assert_int_eq(ew_saxpy_float4(1.0f, odd, d, 8, 0), cudaErrorMisalignedAddress);
  ck_assert_int_eq(ew_saxpy_float4(1.0f, d, (float *)odd, 8, 0), cudaErrorMisalignedAddress);
  ck_assert_int_eq(ew_saxpy_cublas(1.0f, odd, d, 8, 0), cudaErrorMisalignedAddress);
  /* Nothing above may have launched (or left an error behind). */
  CUDA_OK(cudaDeviceSynchronize());
  CUDA_OK(cudaGetLastError());
  CUDA_OK(cudaFree(d));
}
END_TEST

static TCase *variant_case(const char *name, const TTest *test) {
  TCase *tc = tcase_create(name);
  tcase_add_loop_test(tc, test, 0, NSIZES);
  return tc;
}

int main(void) {
  require_gpu("elementwise_test");
  test_seed();
  Suite *s = suite_create("elementwise");
  suite_add_tcase(s, variant_case("add", add_all_sizes));
  TCase *f4 = variant_case("add_float4", add_float4_aligned);
  tcase_add_loop_test(f4, add_float4_same_offset, 0, NSIZES);
  tcase_add_loop_test(f4, add_float4_mixed_offsets, 0, NSIZES);
  suite_add_tcase(s, f4);
  suite_add_tcase(s, variant_case("saxpy", saxpy_all_sizes));
  TCase *s4 = variant_case("saxpy_float4", saxpy_float4_aligned);
  tcase_add_loop_test(s4, saxpy_float4_same_offset, 0, NSIZES);
  tcase_add_loop_test(s4, saxpy_float4_mixed_offsets, 0, NSIZES);
  suite_add_tcase(s, s4);
  suite_add_tcase(s, variant_case("cublas_saxpy", saxpy_cublas_all_sizes));
  TCase *args = tcase_create("arguments");
  tcase_add_test(args, rejects_bad_arguments);
  suite_add_tcase(s, args);
  return run_gpu_suite(s);
}
