/* Correctness of kernels/transpose against an exact CPU reference.
 * Every variant runs on every shape below; outputs are poisoned before each
 * run, every element is checked, guard zones catch writes past either end, and
 * the input must come back unchanged after every variant.
 * A transpose only moves values, so the tolerance is 0: each output element
 * must equal its input element exactly (rtol = atol = 0 in compare_f32; the
 * poison NaN never passes). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/transpose/transpose.h"
#include "kernels/transpose/transpose_variants.h"
#include "tests/support/gpu_check.h"
#include "tests/support/host_check.h"

/* The variants: kernels/transpose/transpose_variants.c. */
#define NVARIANTS (int)transpose_nvariants

/* nx x ny (in has ny rows of nx). None is a multiple of a tile (32, 64, 128)
 * except where said; rectangular both ways. The first group has odd sizes (the
 * scalar paths); the second has nx, ny multiples of 4 so that tile64_vec takes
 * its float4 path, with ragged tile edges. The last two have ny past the grid's
 * y limit of 65535 tiles, which the kernels launched with tiles of ny in grid y
 * cover with grid-stride loops: naive_row and unroll4_row (tiles of 8 rows:
 * 524289), smem_tiled and smem_padded (32: 131073), tile64_vec (64: 65537; its
 * scalar path at nx = 2, its float4 path at nx = 4). */
static const struct {
  int nx, ny;
} kShapes[] = {
    {0, 5},       {7, 0},    {1, 1},    {1, 1000},    {1000, 1},    {3, 5},       {31, 33},  {33, 31},
    {257, 129},   {4097, 3}, {3, 4097}, {1023, 1025}, {8191, 4099}, /* the benchmark's odd shape */
    {4, 4},       {4, 8},    {68, 132}, {132, 68},    {1028, 516},  {4100, 2052}, {128, 64}, /* whole 64x64 tiles: the unguarded case */
    {2097153, 2}, /* more than 65535 tiles of 32 along x: out_order launches twice */
    {4194305, 2}, /* more than 65535 tiles of 64 along x: out_order_wide launches twice */
    {2, 4194305}, /* more than 65535 tiles along y (the grid's y limit): the loops over grid y run again */
    {4, 4194308}, /* the same with nx, ny multiples of 4: tile64_vec's float4 path */
};
#define NSHAPES (int)(sizeof kShapes / sizeof kShapes[0])

/* Runs variant v on in (nx x ny, already on the device at in_buf) and checks
 * every element of its output (allocated with `out_off` floats of misalignment).
 * Returns 1 if it was wrong, after printing which elements: the caller checks every
 * variant before it fails, so one broken variant cannot hide another. The input
 * must come back unchanged, guards included (else the test fails here, naming v:
 * the variants after it would see another input). */
static int check_variant(int v, const guarded_buf *in_buf, const float *in, const double *want, int nx, int ny,
                         size_t out_off) {
  size_t n = (size_t)nx * (size_t)ny;
  float *got = malloc((n + 1) * sizeof(float));
  ck_assert_ptr_nonnull(got);
  guarded_buf out = gbuf_alloc(n, out_off);
  CUDA_OK(transpose_variants[v].fn(in_buf->ptr, out.ptr, nx, ny, 0));
  CUDA_OK(cudaDeviceSynchronize());
  gbuf_download(in_buf, got);
  ck_assert_msg(n == 0 || memcmp(got, in, n * sizeof(float)) == 0, "%s nx=%d ny=%d: the input was modified",
                transpose_variants[v].name, nx, ny);
  gbuf_download(&out, got);
  compare_report r = compare_f32(got, want, NULL, n, TOL_EXACT);
  char line[256];
  format_report(&r, line, sizeof line);
  const char *name = transpose_variants[v].name;
  printf("%-12s nx=%-5d ny=%-5d offsets in=%zu out=%zu: %s %s\n", name, nx, ny, in_buf->offset, out_off, line,
         r.bad ? "FAIL" : "ok");
  fflush(stdout);
  gbuf_free(&out);
  free(got);
  return r.bad != 0;
}

/* Every variant on one input; fails naming each wrong variant. */
static void check_all_variants(const guarded_buf *in_buf, const float *in, const double *want, int nx, int ny,
                               size_t out_off) {
  char wrong[512] = "";
  int failed = 0;
  for (int v = 0; v < NVARIANTS; v++)
    if (check_variant(v, in_buf, in, want, nx, ny, out_off)) {
      failed++;
      size_t used = strlen(wrong);
      snprintf(wrong + used, sizeof wrong - used, " %s", transpose_variants[v].name);
    }
  ck_assert_msg(failed == 0, "%d variant(s) wrong at nx=%d ny=%d offsets %zu/%zu:%s", failed, nx, ny, in_buf->offset,
                out_off, wrong);
}

/* Fresh random input in [-1, 1) and its transpose as the CPU reference. */
static float *make_input(int nx, int ny, double **want) {
  size_t n = (size_t)nx * (size_t)ny;
  test_rng rng;
  rng_seed(&rng, test_seed() ^ ((uint64_t)nx * 2654435761u + (uint64_t)ny * 40503u));
  float *in = malloc((n + 1) * sizeof(float));
  *want = malloc((n + 1) * sizeof(double));
  ck_assert(in && *want);
  fill_uniform(in, n, -1.0f, 1.0f, &rng);
  for (size_t y = 0; y < (size_t)ny; y++)
    for (size_t x = 0; x < (size_t)nx; x++) (*want)[x * ny + y] = in[y * nx + x];
  return in;
}

START_TEST(all_variants_one_shape) {
  int nx = kShapes[_i].nx, ny = kShapes[_i].ny;
  double *want;
  float *in = make_input(nx, ny, &want);
  guarded_buf d_in = gbuf_alloc((size_t)nx * ny, 0);
  gbuf_upload(&d_in, in);
  check_all_variants(&d_in, in, want, nx, ny, 0);
  gbuf_free(&d_in);
  free(in);
  free(want);
}
END_TEST

/* Pointers off 16-byte alignment: tile64_vec must fall back to its scalar path
 * (the shapes allow float4); every variant must cope. */
START_TEST(misaligned_pointers) {
  static const struct { int nx, ny; } shapes[] = {{132, 68}, {1028, 516}};
  static const size_t offsets[][2] = {{1, 0}, {0, 2}, {3, 3}};
  for (int s = 0; s < 2; s++) {
    int nx = shapes[s].nx, ny = shapes[s].ny;
    double *want;
    float *in = make_input(nx, ny, &want);
    for (int o = 0; o < 3; o++) {
      guarded_buf d_in = gbuf_alloc((size_t)nx * ny, offsets[o][0]);
      gbuf_upload(&d_in, in);
      check_all_variants(&d_in, in, want, nx, ny, offsets[o][1]);
      gbuf_free(&d_in);
    }
    free(in);
    free(want);
  }
}
END_TEST

/* Bad arguments are reported, never launched; an empty matrix accepts NULL. */
START_TEST(rejects_bad_arguments) {
  float *d;
  CUDA_OK(cudaMalloc((void **)&d, 64 * sizeof(float)));
  const float *odd = (const float *)((const char *)d + 2);
  for (int v = 0; v < NVARIANTS; v++) {
    transpose_fn fn = transpose_variants[v].fn;
    ck_assert_int_eq(fn(NULL, NULL, 0, 5, 0), cudaSuccess);
    ck_assert_int_eq(fn(NULL, NULL, 5, 0, 0), cudaSuccess);
    ck_assert_int_eq(fn(d, d + 32, -1, 4, 0), cudaErrorInvalidValue);
    ck_assert_int_eq(fn(d, d + 32, 4, -1, 0), cudaErrorInvalidValue);
    ck_assert_int_eq(fn(NULL, d, 4, 4, 0), cudaErrorInvalidValue);
    ck_assert_int_eq(fn(d, NULL, 4, 4, 0), cudaErrorInvalidValue);
    ck_assert_int_eq(fn(odd, d + 32, 4, 4, 0), cudaErrorMisalignedAddress);
  }
  CUDA_OK(cudaGetLastError());
  CUDA_OK(cudaFree(d));
}
END_TEST

int main(void) {
  require_gpu("transpose_test");
  test_seed();
  Suite *s = suite_create("transpose");
  TCase *shapes = tcase_create("shapes");
  tcase_add_loop_test(shapes, all_variants_one_shape, 0, NSHAPES);
  suite_add_tcase(s, shapes);
  TCase *align = tcase_create("misaligned");
  tcase_add_test(align, misaligned_pointers);
  suite_add_tcase(s, align);
  TCase *args = tcase_create("arguments");
  tcase_add_test(args, rejects_bad_arguments);
  suite_add_tcase(s, args);
  return run_gpu_suite(s);
}
