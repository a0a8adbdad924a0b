/* Correctness of kernels/scale: y = a * x against an fp64 reference, each element within one
 * correct rounding (FLOAT_UNIT_ROUNDOFF relative to the exact product). Every variant of
 * scale_variants.c runs at every size below, with x and y aligned, misaligned alike (the float4
 * path starts after a scalar head) and misaligned differently. Outputs are poisoned before the
 * run, every element is checked, and guard zones catch writes past either end. */
#include <stdio.h>
#include <stdlib.h>

#include "tests/support/host_check.h"
#include "kernels/scale/scale.h"
#include "kernels/scale/scale_variants.h"
#include "tests/support/gpu_check.h"

/* Not multiples of the block (256) or the vector width (4); primes among them. */
static const size_t kSizes[] = {0, 1, 3, 4, 5, 31, 257, 4097, 4099, 65537, 1000003};
#define NSIZES (int)(sizeof kSizes / sizeof kSizes[0])

/* Float offsets of x and y from 16-byte alignment: aligned, alike, mixed. */
static const size_t kOffsets[][2] = {{0, 0}, {1, 1}, {3, 3}, {1, 2}, {0, 3}, {2, 0}};
#define NOFFSETS (sizeof kOffsets / sizeof kOffsets[0])

static void check_scale(const scale_variant *v, size_t n, size_t off_x, size_t off_y) {
  test_rng rng;
  rng_seed(&rng, test_seed() ^ (n * 2654435761u + off_x * 7 + off_y * 13));
  float a = (float)(8 * rng_uniform(&rng) - 4); /* drawn per case: any factor, either sign */
  float *x = malloc((n + 1) * sizeof(float)), *y = malloc((n + 1) * sizeof(float));
  double *want = malloc((n + 1) * sizeof(double));
  ck_assert(x && y && want);
  fill_uniform(x, n, -1.0f, 1.0f, &rng);
  for (size_t i = 0; i < n; i++) want[i] = (double)a * x[i];

  guarded_buf dx = gbuf_alloc(n, off_x), dy = gbuf_alloc(n, off_y); /* poisoned */
  gbuf_upload(&dx, x);
  CUDA_OK(v->fn(a, dx.ptr, dy.ptr, n, 0));
  CUDA_OK(cudaDeviceSynchronize());
  gbuf_download(&dy, y);
  gbuf_download(&dx, x); /* checks x's guards too: scale never writes there */

  compare_report r = compare_f32(y, want, NULL, n, (tolerance){.rel = FLOAT_UNIT_ROUNDOFF});
  char line[256];
  format_report(&r, line, sizeof line);
  printf("%-13s n=%-8zu a=%+.4f offsets x=%zu y=%zu: %s %s\n", v->name, n, a, off_x, off_y, line,
         r.bad ? "FAIL" : "ok");
  ck_assert_msg(r.bad == 0, "%s n=%zu offsets %zu/%zu: %s", v->name, n, off_x, off_y, line);
  gbuf_free(&dx);
  gbuf_free(&dy);
  free(x);
  free(y);
  free(want);
}

/* _i runs over variants x sizes. */
START_TEST(scale_variants_all_sizes) {
  const scale_variant *v = &scale_variants[_i / NSIZES];
  for (size_t o = 0; o < NOFFSETS; o++) check_scale(v, kSizes[_i % NSIZES], kOffsets[o][0], kOffsets[o][1]);
}
END_TEST

/* Bad arguments are reported, never launched; n == 0 accepts NULL. */
START_TEST(rejects_bad_arguments) {
  float *d;
  CUDA_OK(cudaMalloc((void **)&d, 64 * sizeof(float)));
  for (size_t k = 0; k < scale_nvariants; k++) {
    scale_fn fn = scale_variants[k].fn;
    ck_assert_int_eq(fn(2.0f, NULL, NULL, 0, 0), cudaSuccess);
    ck_assert_int_eq(fn(2.0f, NULL, d, 8, 0), cudaErrorInvalidValue);
    ck_assert_int_eq(fn(2.0f, d, NULL, 8, 0), cudaErrorInvalidValue);
    const float *odd = (const float *)((const char *)d + 2);
    ck_assert_int_eq(fn(2.0f, odd, d + 16, 8, 0), cudaErrorMisalignedAddress);
  }
  CUDA_OK(cudaFree(d));
}
END_TEST

int main(void) {
  require_gpu("scale_test");
  test_seed();
  Suite *s = suite_create("scale");
  TCase *runs = tcase_create("scale");
  tcase_add_loop_test(runs, scale_variants_all_sizes, 0, (int)scale_nvariants * NSIZES);
  suite_add_tcase(s, runs);
  TCase *args = tcase_create("arguments");
  tcase_add_test(args, rejects_bad_arguments);
  suite_add_tcase(s, args);
  return run_gpu_suite(s);
}
