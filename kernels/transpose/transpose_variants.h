/* The variants of kernels/transpose: the one table that the Check test (transpose_test.c) and
 * the benchmark (transpose_bench.c) both loop over. A transpose is exact: no accuracy model. */
#ifndef KERNELS_TRANSPOSE_TRANSPOSE_VARIANTS_H
#define KERNELS_TRANSPOSE_TRANSPOSE_VARIANTS_H

#include <stddef.h>

#include "kernels/transpose/transpose.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef cudaError_t (*transpose_fn)(const float *in, float *out, int nx, int ny, cudaStream_t stream);

typedef struct {
  const char *name;
  transpose_fn fn;
  int reference; /* a library reference (cuBLAS sgeam): reported, never the code under test */
} transpose_variant;

extern const transpose_variant transpose_variants[];
extern const size_t transpose_nvariants;

#ifdef __cplusplus
}
#endif

#endif
