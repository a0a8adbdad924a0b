/* The variants of kernels/matmul with their accuracy model: the one table that the Check test
 * (matmul_test.c) and the benchmark (matmul_bench.c) both loop over. */
#ifndef KERNELS_MATMUL_MATMUL_VARIANTS_H
#define KERNELS_MATMUL_MATMUL_VARIANTS_H

#include <stddef.h>

#include "kernels/matmul/matmul.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef cudaError_t (*matmul_fn)(const float *A, const float *B, float *C, int M, int N, int K, cudaStream_t stream);

/* How a variant's inputs reach the multiplier. */
typedef enum {
  MATMUL_FP32 = 0,       /* fp32 FMA throughout */
  MATMUL_TF32_ROUND = 1, /* each input rounded to the nearest TF32 (cvt.rna.tf32) before the tensor cores */
  MATMUL_TF32_TRUNC = 2  /* inputs given to the tensor cores as fp32 bits, which use their TF32 part only:
                            truncated (our wgmma kernels' A, read from shared memory, their B being rounded;
                            cuBLAS, which does not say). matmul_test.c checks ours against their inputs as
                            taken, and tells rounded from truncated */
} matmul_inputs;

typedef struct {
  const char *name;
  matmul_fn fn;
  matmul_inputs inputs; /* not MATMUL_FP32: tensor cores, not an fp32 result */
  int reference;        /* a library reference (cuBLAS): reported, never the code under test */
} matmul_variant;

extern const matmul_variant matmul_variants[];
extern const size_t matmul_nvariants;

/* Element (i, j) of C = A B with inner dimension K must be within rtol * S_ij of the exact product
 * of the fp32 inputs, S_ij = sum_k |a_ik| |b_kj|. fp32: rtol = 2 K u, u = 2^-24 (any evaluation of
 * a length-K dot product, in any order, with or without FMA, is within gamma_K = K u / (1 - K u);
 * the 2 covers the 1 / (1 - K u) and some margin, and a lost or repeated term, about S / K, still
 * exceeds it for K <= 1024). TF32 (tensor cores): each input keeps 10 of float's 23 fraction bits. Rounded
 * to the nearest, an input is off by at most u_tf32 = 2^-11 of itself, so a product by 2 u_tf32 + u_tf32^2;
 * truncated, by less than 2 u_tf32 (one unit in the last place kept), so a product by 4 u_tf32 + 4 u_tf32^2.
 * Either is relative to |a_ik b_kj|, so the sum's error is that times S_ij, plus the fp32 accumulation's
 * 2 K u (the tensor cores' adds may truncate too: within the same bound). */
double matmul_rtol(const matmul_variant *v, int K);

#ifdef __cplusplus
}
#endif

#endif
