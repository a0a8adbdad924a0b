/* Correctness of kernels/matmul against an fp64 CPU reference.
 * Every variant runs on every shape below; C is poisoned before each run,
 * every element is checked, and guard zones catch writes past either end.
 *
 * Tolerances, per element, against the exact (fp64) product of the fp32
 * inputs: matmul_rtol(v, K) * S_ij with S_ij = sum_k |a_ik| |b_kj| computed
 * alongside the reference (kernels/matmul/matmul_variants.h: 2 K u for fp32,
 * plus 2 u_tf32 + u_tf32^2 for TF32). A lost or repeated term is typically
 * |a b| ~ S / K, which exceeds 2 K u S by 1 / (2 K^2 u) >= 8 for every K here
 * (K <= 1024).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "kernels/matmul/matmul.h"
#include "kernels/matmul/matmul_variants.h"
#include "tests/support/gpu_check.h"
#include "kernels/common/host_check.h"

/* The variants and their tolerance: kernels/matmul/matmul_variants.c. */
#define NVARIANTS (int)matmul_nvariants

/* M x N x K. Tiles are 16, 32, 64 (TF32) and 128 x 128 x 8 (regblock and warptile,
 * which take float4 paths only when K % 4 == 0 and N % 4 == 0). */
static const struct {
  int M, N, K;
} kShapes[] = {
    {1, 1, 1},         {3, 5, 7},        {17, 31, 13},      {64, 64, 64},     {127, 129, 65},
    {255, 257, 511},   {513, 1031, 77},  {33, 65, 1},       /* K = 1 */
    {130, 258, 1},     {5, 7, 0},        /* K = 0: C = 0 */
    {0, 5, 3},         {4, 0, 3},        /* empty C */
    {96, 130, 64},     /* K % 4 == 0 but N % 4 != 0: scalar fallback */
    {130, 96, 66},     /* N % 4 == 0 but K % 4 != 0: scalar fallback */
    {4, 4, 4},         {128, 128, 8},    /* one whole regblock tile and k-step */
    {256, 512, 128},   /* whole tiles only: regblock's float4 path, no edges */
    {200, 204, 212},   /* float4 path with edge tiles and a partial k-step */
    {1, 1024, 1024},   {1024, 1, 1024}, /* a row times a matrix, a matrix times a column */
    {1000, 1004, 1012}, /* large: full float4 tiles inside, ragged edges in M, N and K */
    {256, 384, 48},    /* whole 128x128 tiles and k-steps of 16: pipelined's own path (3 k-steps, */
    {384, 128, 208},   /* fewer than its 4 stages; 13, more than them); misaligned: warptile's */
};
#define NSHAPES (int)(sizeof kShapes / sizeof kShapes[0])

typedef struct {
  int M, N, K;
  float *a, *b;
  double *want, *scale;
} problem;

/* Fresh random A, B in [-1, 1) and the fp64 reference with its error scale,
 * in i-k-j order (unit stride in the inner loop) so the large case takes a
 * second or so. */
static problem make_problem(int M, int N, int K) {
  problem p = {.M = M, .N = N, .K = K};
  size_t na = (size_t)M * K, nb = (size_t)K * N, nc = (size_t)M * N;
  test_rng rng;
  rng_seed(&rng, test_seed() ^ ((uint64_t)M * 2654435761u + (uint64_t)N * 40503u + (uint64_t)K * 977u));
  p.a = malloc((na + 1) * sizeof(float));
  p.b = malloc((nb + 1) * sizeof(float));
  p.want = calloc(nc + 1, sizeof(double));
  p.scale = calloc(nc + 1, sizeof(double));
  double *bd = malloc((nb + 1) * sizeof(double)), *babs = malloc((nb + 1) * sizeof(double));
  ck_assert(p.a && p.b && p.want && p.scale && bd && babs);
  fill_uniform(p.a, na, -1.0f, 1.0f, &rng);
  fill_uniform(p.b, nb, -1.0f, 1.0f, &rng);
  for (size_t i = 0; i < nb; i++) {
    bd[i] = p.b[i];
    babs[i] = fabs(bd[i]);
  }
  for (size_t i = 0; i < (size_t)M; i++) {
    double *w = p.want + i * N, *s = p.scale + i * N;
    for (size_t k = 0; k < (size_t)K; k++) {
      double a = p.a[i * K + k], aa = fabs(a);
      const double *brow = bd + k * N, *babsrow = babs + k * N;
      for (size_t j = 0; j < (size_t)N; j++) {
        w[j] += a * brow[j];
        s[j] += aa * babsrow[j];
      }
    }
  }
  free(bd);
  free(babs);
  return p;
}

static void free_problem(problem *p) {
  free(p->a);
  free(p->b);
  free(p->want);
  free(p->scale);
}

/* Runs variant v on p with the given float misalignments of A, B, C and checks
 * every element of C. */
static void check_variant(int v, const problem *p, size_t off_a, size_t off_b, size_t off_c) {
  int M = p->M, N = p->N, K = p->K;
  size_t nc = (size_t)M * N;
  double rtol = matmul_rtol(&matmul_variants[v], K);
  guarded_buf da = gbuf_alloc((size_t)M * K, off_a), db = gbuf_alloc((size_t)K * N, off_b),
              dc = gbuf_alloc(nc, off_c);
  gbuf_upload(&da, p->a);
  gbuf_upload(&db, p->b);
  float *got = malloc((nc + 1) * sizeof(float));
  ck_assert_ptr_nonnull(got);
  CUDA_OK(matmul_variants[v].fn(da.ptr, db.ptr, dc.ptr, M, N, K, 0));
  CUDA_OK(cudaDeviceSynchronize());
  gbuf_download(&dc, got);
  compare_report r = compare_f32(got, p->want, p->scale, nc, rtol, 0.0);
  char line[256];
  format_report(&r, line, sizeof line);
  printf("%-9s M=%-4d N=%-4d K=%-4d offsets a=%zu b=%zu c=%zu rtol=%.2g*S: %s %s\n", matmul_variants[v].name, M, N, K,
         off_a, off_b, off_c, rtol, line, r.bad ? "FAIL" : "ok");
  fflush(stdout);
  ck_assert_msg(r.bad == 0, "%s M=%d N=%d K=%d offsets %zu/%zu/%zu: %s", matmul_variants[v].name, M, N, K, off_a, off_b,
                off_c, line);
  free(got);
  gbuf_free(&da);
  gbuf_free(&db);
  gbuf_free(&dc);
}

START_TEST(all_variants_one_shape) {
  problem p = make_problem(kShapes[_i].M, kShapes[_i].N, kShapes[_i].K);
  for (int v = 0; v < NVARIANTS; v++) check_variant(v, &p, 0, 0, 0);
  free_problem(&p);
}
END_TEST

/* A shape that allows float4 everywhere, with one pointer at a time (then all
 * three) off 16-byte alignment: the vector paths must step aside. */
START_TEST(misaligned_pointers) {
  static const size_t offsets[][3] = {{1, 0, 0}, {0, 2, 0}, {0, 0, 3}, {3, 1, 2}};
  problem p = make_problem(200, 204, 212);
  for (int o = 0; o < 4; o++)
    for (int v = 0; v < NVARIANTS; v++) check_variant(v, &p, offsets[o][0], offsets[o][1], offsets[o][2]);
  free_problem(&p);
}
END_TEST

/* Bad arguments are reported, never launched; empty C accepts NULL. */
START_TEST(rejects_bad_arguments) {
  float *d;
  CUDA_OK(cudaMalloc((void **)&d, 256 * sizeof(float)));
  const float *odd = (const float *)((const char *)d + 2);
  for (int v = 0; v < NVARIANTS; v++) {
    matmul_fn fn = matmul_variants[v].fn;
    ck_assert_int_eq(fn(NULL, NULL, NULL, 0, 4, 4, 0), cudaSuccess);
    ck_assert_int_eq(fn(NULL, NULL, NULL, 4, 0, 4, 0), cudaSuccess);
    ck_assert_int_eq(fn(d, d + 64, d + 128, -1, 4, 4, 0), cudaErrorInvalidValue);
    ck_assert_int_eq(fn(d, d + 64, d + 128, 4, -1, 4, 0), cudaErrorInvalidValue);
    ck_assert_int_eq(fn(d, d + 64, d + 128, 4, 4, -1, 0), cudaErrorInvalidValue);
    ck_assert_int_eq(fn(NULL, d + 64, d + 128, 4, 4, 4, 0), cudaErrorInvalidValue);
    ck_assert_int_eq(fn(d, NULL, d + 128, 4, 4, 4, 0), cudaErrorInvalidValue);
    ck_assert_int_eq(fn(d, d + 64, NULL, 4, 4, 4, 0), cudaErrorInvalidValue);
    ck_assert_int_eq(fn(odd, d + 64, d + 128, 4, 4, 4, 0), cudaErrorMisalignedAddress);
  }
  CUDA_OK(cudaGetLastError());
  CUDA_OK(cudaFree(d));
}
END_TEST

int main(void) {
  require_gpu("matmul_test");
  test_seed();
  Suite *s = suite_create("matmul");
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
