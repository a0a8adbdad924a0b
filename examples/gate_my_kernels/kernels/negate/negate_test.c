/* Correctness of negate against an fp64 reference: exact (negation does not round). Fresh random
 * inputs (the seed is printed), sizes that are no multiple of the block, outputs poisoned, every
 * element checked, guard zones around both buffers (the suite's tests/support). */
#include <stdio.h>
#include <stdlib.h>

#include "tests/support/host_check.h"
#include "kernels/negate/negate_variants.h"
#include "tests/support/gpu_check.h"

static const size_t kSizes[] = {0, 1, 3, 257, 4097, 65537, 1000003};
#define NSIZES (int)(sizeof kSizes / sizeof kSizes[0])

START_TEST(negate_all_sizes) {
  const negate_variant *v = &negate_variants[_i / NSIZES];
  size_t n = kSizes[_i % NSIZES];
  test_rng rng;
  rng_seed(&rng, test_seed() ^ n);
  float *x = malloc((n + 1) * sizeof(float)), *y = malloc((n + 1) * sizeof(float));
  double *want = malloc((n + 1) * sizeof(double));
  ck_assert(x && y && want);
  fill_uniform(x, n, -1.0f, 1.0f, &rng);
  for (size_t i = 0; i < n; i++) want[i] = -(double)x[i];
  guarded_buf dx = gbuf_alloc(n, 1), dy = gbuf_alloc(n, 3); /* poisoned, misaligned */
  gbuf_upload(&dx, x);
  CUDA_OK(v->fn(dx.ptr, dy.ptr, n, 0));
  CUDA_OK(cudaDeviceSynchronize());
  gbuf_download(&dy, y);
  compare_report r = compare_f32(y, want, NULL, n, TOL_EXACT);
  char line[256];
  format_report(&r, line, sizeof line);
  printf("%s n=%zu: %s\n", v->name, n, line);
  ck_assert_msg(r.bad == 0, "%s n=%zu: %s", v->name, n, line);
  gbuf_free(&dx);
  gbuf_free(&dy);
  free(x);
  free(y);
  free(want);
}
END_TEST

int main(void) {
  require_gpu("negate_test");
  test_seed();
  Suite *s = suite_create("negate");
  TCase *tc = tcase_create("negate");
  tcase_add_loop_test(tc, negate_all_sizes, 0, (int)negate_nvariants * NSIZES);
  suite_add_tcase(s, tc);
  return run_gpu_suite(s);
}
