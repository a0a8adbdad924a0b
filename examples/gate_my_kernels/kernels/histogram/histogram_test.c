/* Correctness of the histogram variants against a CPU count: exact, every bin (counts are integers).
 * Fresh random bytes (the seed is printed) at sizes that are no multiple of the block, of 16 or of
 * 256 (0, 1, 3, 4097, primes), from input pointers 0..15 bytes off 16-byte alignment, into poisoned
 * counts (every bit set: -1, never a count), with guard zones around both buffers (the suite's
 * tests/support, typed: bytes in, int32 out). Inputs of one byte value pile every count onto one
 * bin, the last: a lost atomic update or an off-by-one bin shows there. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/support/host_check.h"
#include "kernels/histogram/histogram_variants.h"
#include "tests/support/gpu_check.h"

static const size_t kSizes[] = {0, 1, 3, 15, 16, 17, 257, 4097, 65537, 1000003, 16777259};
#define NSIZES (int)(sizeof kSizes / sizeof kSizes[0])
static const size_t kOffsets[] = {0, 1, 3, 8, 15}; /* bytes off 16-byte alignment */
#define NOFFSETS (sizeof kOffsets / sizeof kOffsets[0])

typedef enum { RANDOM, ONE_VALUE } input_kind;

static void check(const histogram_variant *v, size_t n, size_t offset, input_kind kind) {
  test_rng rng;
  rng_seed(&rng, test_seed() ^ (n * 2654435761u + offset * 7 + kind));
  uint8_t *x = malloc(n + 1);
  ck_assert_ptr_nonnull(x);
  if (kind == RANDOM) rng_fill(ELEM_U8, x, n, 0, 255, &rng);
  if (kind == ONE_VALUE) memset(x, HISTOGRAM_BINS - 1, n);
  double want[HISTOGRAM_BINS] = {0};
  for (size_t i = 0; i < n; i++) want[x[i]]++;

  guarded_buf dx = gbuf_alloc_elems(ELEM_U8, n, offset), dc = gbuf_alloc_elems(ELEM_I32, HISTOGRAM_BINS, 0);
  gbuf_upload(&dx, x);
  CUDA_OK(v->fn(dx.ptr, dc.ptr, n, 0));
  CUDA_OK(cudaDeviceSynchronize());
  int32_t counts[HISTOGRAM_BINS];
  gbuf_download(&dc, counts);
  gbuf_download(&dx, x); /* checks x's guards too: a histogram only reads x */

  compare_report r = compare_elems(ELEM_I32, counts, want, NULL, HISTOGRAM_BINS, TOL_EXACT);
  char line[256];
  format_report(&r, line, sizeof line);
  printf("%-12s n=%-9zu offset=%-2zu %-9s: %s %s\n", v->name, n, offset, kind == RANDOM ? "random" : "one value", line,
         r.bad ? "FAIL" : "ok");
  ck_assert_msg(r.bad == 0, "%s n=%zu offset %zu: %s", v->name, n, offset, line);
  gbuf_free(&dx);
  gbuf_free(&dc);
  free(x);
}

/* _i runs over variants x sizes. */
START_TEST(histogram_all_sizes) {
  const histogram_variant *v = &histogram_variants[_i / NSIZES];
  for (size_t o = 0; o < NOFFSETS; o++) {
    check(v, kSizes[_i % NSIZES], kOffsets[o], RANDOM);
    check(v, kSizes[_i % NSIZES], kOffsets[o], ONE_VALUE);
  }
}
END_TEST

/* Bad arguments are reported, never launched; n == 0 accepts a NULL x and still clears the counts. */
START_TEST(histogram_rejects_bad_arguments) {
  int32_t *d, counts[HISTOGRAM_BINS];
  CUDA_OK(cudaMalloc((void **)&d, 2 * HISTOGRAM_BINS * sizeof *d));
  const uint8_t *bytes = (const uint8_t *)d;
  for (size_t k = 0; k < histogram_nvariants; k++) {
    const histogram_variant *v = &histogram_variants[k];
    ck_assert_int_eq(v->fn(bytes, NULL, 8, 0), cudaErrorInvalidValue);
    ck_assert_int_eq(v->fn(NULL, d, 8, 0), cudaErrorInvalidValue);
    ck_assert_int_eq(v->fn(bytes, (int32_t *)((char *)d + 2), 8, 0), cudaErrorMisalignedAddress);
    CUDA_OK(cudaMemset(d, 0xFF, HISTOGRAM_BINS * sizeof *d));
    ck_assert_int_eq(v->fn(NULL, d, 0, 0), cudaSuccess);
    CUDA_OK(cudaMemcpy(counts, d, sizeof counts, cudaMemcpyDeviceToHost));
    for (int b = 0; b < HISTOGRAM_BINS; b++)
      ck_assert_msg(counts[b] == 0, "%s n=0: bin %d = %d", v->name, b, counts[b]);
  }
  CUDA_OK(cudaDeviceSynchronize());
  CUDA_OK(cudaGetLastError());
  CUDA_OK(cudaFree(d));
}
END_TEST

int main(void) {
  require_gpu("histogram_test");
  test_seed();
  Suite *s = suite_create("histogram");
  TCase *tc = tcase_create("histogram");
  tcase_add_loop_test(tc, histogram_all_sizes, 0, (int)histogram_nvariants * NSIZES);
  tcase_add_test(tc, histogram_rejects_bad_arguments);
  suite_add_tcase(s, tc);
  return run_gpu_suite(s);
}
