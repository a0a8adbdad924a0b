/* Correctness of kernels/copy: every element of the destination must equal the
 * source bit for bit (a copy does no arithmetic, so the tolerance is zero).
 * Every variant of kernels/copy/copy_variants.c runs at every size below, with
 * its pointers aligned, misaligned alike (a float4 path starts after a scalar
 * head) and misaligned differently. Destinations are poisoned before the run,
 * every element is checked, and guard zones catch writes past either end. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/copy/copy.h"
#include "kernels/copy/copy_variants.h"
#include "tests/support/gpu_check.h"
#include "tests/support/host_check.h"

/* Not multiples of the blocks (256, 1024) or the vector width (4); primes among them. */
static const size_t kSizes[] = {0, 1, 3, 4, 5, 31, 257, 4097, 4099, 65537, 1000003, 16777259};
#define NSIZES (int)(sizeof kSizes / sizeof kSizes[0])

/* Float offsets of source and destination from 16-byte alignment: aligned, alike, mixed. */
static const size_t kOffsets[][2] = {{0, 0}, {1, 1}, {2, 2}, {3, 3}, {1, 2}, {0, 3}, {2, 0}, {1, 3}};
#define NOFFSETS (sizeof kOffsets / sizeof kOffsets[0])

static void check_copy(const char *variant, copy_fn fn, size_t n, size_t off_src, size_t off_dst) {
  test_rng rng;
  rng_seed(&rng, test_seed() ^ (n * 2246822519u + off_src * 7 + off_dst * 13));
  float *src = malloc((n + 1) * sizeof(float)), *dst = malloc((n + 1) * sizeof(float));
  double *want = malloc((n + 1) * sizeof(double));
  ck_assert(src && dst && want);
  fill_uniform(src, n, -1.0f, 1.0f, &rng);
  for (size_t i = 0; i < n; i++) want[i] = src[i];

  guarded_buf ds = gbuf_alloc(n, off_src), dd = gbuf_alloc(n, off_dst);
  gbuf_upload(&ds, src);
  CUDA_OK(fn(ds.ptr, dd.ptr, n, 0));
  CUDA_OK(cudaDeviceSynchronize());
  gbuf_download(&dd, dst);
  gbuf_download(&ds, src); /* also checks the source's guards: a copy never writes there */

  compare_report r = compare_f32(dst, want, NULL, n, TOL_EXACT);
  int bit_exact = n == 0 || memcmp(dst, src, n * sizeof(float)) == 0;
  char line[256];
  format_report(&r, line, sizeof line);
  printf("%-12s n=%-9zu offsets src=%zu dst=%zu: %s%s %s\n", variant, n, off_src, off_dst, line,
         bit_exact ? "" : " (not bit-exact)", r.bad || !bit_exact ? "FAIL" : "ok");
  ck_assert_msg(r.bad == 0 && bit_exact, "%s n=%zu offsets %zu/%zu: %s", variant, n, off_src, off_dst, line);
  gbuf_free(&ds);
  gbuf_free(&dd);
  free(src);
  free(dst);
  free(want);
}

/* _i runs over variants x sizes. */
START_TEST(copy_variants_all_sizes) {
  const copy_variant *v = &copy_variants[_i / NSIZES];
  for (size_t o = 0; o < NOFFSETS; o++) check_copy(v->name, v->fn, kSizes[_i % NSIZES], kOffsets[o][0], kOffsets[o][1]);
}
END_TEST

/* Bad arguments are reported, never launched; n == 0 accepts NULL. */
START_TEST(rejects_bad_arguments) {
  float *d;
  CUDA_OK(cudaMalloc((void **)&d, 64 * sizeof(float)));
  ck_assert_int_eq(copy_float4(NULL, NULL, 0, 0), cudaSuccess);
  ck_assert_int_eq(copy_memcpy(NULL, NULL, 0, 0), cudaSuccess);
  ck_assert_int_eq(copy_float4(NULL, d, 8, 0), cudaErrorInvalidValue);
  ck_assert_int_eq(copy_float4(d, NULL, 8, 0), cudaErrorInvalidValue);
  ck_assert_int_eq(copy_float4_b1024_cg(NULL, NULL, 0, 0), cudaSuccess);
  ck_assert_int_eq(copy_float4_b1024_cg(NULL, d, 8, 0), cudaErrorInvalidValue);
  ck_assert_int_eq(copy_float4_b1024_cg(d + 16, (float *)((char *)d + 2), 8, 0), cudaErrorMisalignedAddress);
  ck_assert_int_eq(copy_memcpy(NULL, d, 8, 0), cudaErrorInvalidValue);
  ck_assert_int_eq(copy_memcpy(d, NULL, 8, 0), cudaErrorInvalidValue);
  const float *odd = (const float *)((const char *)d + 2);
  ck_assert_int_eq(copy_float4(odd, d + 16, 8, 0), cudaErrorMisalignedAddress);
  ck_assert_int_eq(copy_memcpy(odd, d + 16, 8, 0), cudaErrorMisalignedAddress);
  CUDA_OK(cudaFree(d));
}
END_TEST

int main(void) {
  require_gpu("copy_test");
  test_seed();
  Suite *s = suite_create("copy");
  TCase *copies = tcase_create("copies");
  tcase_add_loop_test(copies, copy_variants_all_sizes, 0, (int)copy_nvariants * NSIZES);
  suite_add_tcase(s, copies);
  TCase *args = tcase_create("arguments");
  tcase_add_test(args, rejects_bad_arguments);
  suite_add_tcase(s, args);
  return run_gpu_suite(s);
}
