/* Correctness of kernels/elementwise against an fp64 CPU reference.
 * Every variant of the tables in kernels/elementwise/elementwise_variants.c
 * runs at every size below, with its pointers aligned, misaligned alike (a
 * float4 path starts after a scalar head) and misaligned differently (the
 * scalar path must take over). add's output is poisoned before each run
 * (saxpy's y is an input too), every element is checked, and poisoned guard
 * zones catch writes past either end. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "kernels/elementwise/elementwise.h"
#include "kernels/elementwise/elementwise_variants.h"
#include "tests/support/gpu_check.h"
#include "tests/support/host_check.h"

/* Not multiples of the block (256) or the vector width (4); primes among them. */
static const size_t kSizes[] = {0, 1, 3, 4, 5, 31, 257, 4097, 4099, 65537, 1000003, 16777259};
#define NSIZES (int)(sizeof kSizes / sizeof kSizes[0])

/* Float offsets of the pointers from 16-byte alignment: aligned, alike, mixed. */
static const size_t kAddOffsets[][3] = {{0, 0, 0}, {1, 1, 1}, {2, 2, 2}, {3, 3, 3}, {1, 2, 3}, {0, 1, 0}};
static const size_t kSaxpyOffsets[][2] = {{0, 0}, {1, 1}, {2, 2}, {3, 3}, {1, 2}, {0, 1}, {3, 0}};
#define NELEMS(a) (sizeof(a) / sizeof((a)[0]))

/* c = a + b, within EW_ADD_RTOL of the exact sum. */
static void check_add(const char *variant, ew_add_fn fn, size_t n, size_t off_a, size_t off_b, size_t off_c) {
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

  compare_report r = compare_f32(c, want, NULL, n, (tolerance){.rel = EW_ADD_RTOL});
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

/* _i runs over variants x sizes. */
START_TEST(add_variants) {
  const ew_add_variant *v = &ew_add_variants[_i / NSIZES];
  for (size_t o = 0; o < NELEMS(kAddOffsets); o++)
    check_add(v->name, v->fn, kSizes[_i % NSIZES], kAddOffsets[o][0], kAddOffsets[o][1], kAddOffsets[o][2]);
}
END_TEST

/* y = alpha*x + y: the product may round before the add (or fuse with it), so
 * the error is bounded relative to |alpha*x| + |y|, not to a result that may
 * cancel. Unfused, with round-to-nearest relative errors of at most u/(1+u)
 * (u = 2^-24) per operation: |err| <= u/(1+u) (|alpha x| + |fl(alpha x) + y|)
 * < 2u (|alpha x| + |y|) = EW_SAXPY_RTOL (...); fused (one rounding, as cuBLAS
 * may do): <= u |alpha x + y|. The fp64 reference is exact up to 2^-53
 * relative, far inside that margin. */
static void check_saxpy(const char *variant, ew_saxpy_fn fn, size_t n, size_t off_x, size_t off_y) {
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
  compare_report r = compare_f32(y, want, scale, n, (tolerance){.rel = EW_SAXPY_RTOL, .rel_to_scale = 1});
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

/* _i runs over variants x sizes; the library reference must be right before its timings mean anything. */
START_TEST(saxpy_variants) {
  const ew_saxpy_variant *v = &ew_saxpy_variants[_i / NSIZES];
  for (size_t o = 0; o < NELEMS(kSaxpyOffsets); o++)
    check_saxpy(v->name, v->fn, kSizes[_i % NSIZES], kSaxpyOffsets[o][0], kSaxpyOffsets[o][1]);
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

int main(void) {
  require_gpu("elementwise_test");
  test_seed();
  Suite *s = suite_create("elementwise");
  TCase *add = tcase_create("add");
  tcase_add_loop_test(add, add_variants, 0, (int)ew_add_nvariants * NSIZES);
  suite_add_tcase(s, add);
  TCase *saxpy = tcase_create("saxpy");
  tcase_add_loop_test(saxpy, saxpy_variants, 0, (int)ew_saxpy_nvariants * NSIZES);
  suite_add_tcase(s, saxpy);
  TCase *args = tcase_create("arguments");
  tcase_add_test(args, rejects_bad_arguments);
  suite_add_tcase(s, args);
  return run_gpu_suite(s);
}
