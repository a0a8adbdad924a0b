/* The variants of kernels/elementwise and their accuracy: the tables that the Check test
 * (elementwise_test.c) and the benchmark (elementwise_bench.c) both loop over, one per
 * signature (c = a + b; y = alpha x + y). */
#ifndef KERNELS_ELEMENTWISE_ELEMENTWISE_VARIANTS_H
#define KERNELS_ELEMENTWISE_ELEMENTWISE_VARIANTS_H

#include <stddef.h>

#include "kernels/elementwise/elementwise.h"

#ifdef __cplusplus
extern "C" {
#endif

/* c = a + b is one correctly rounded float add: relative error <= 2^-24. */
#define EW_ADD_RTOL 0x1p-24
/* y = alpha x + y, the product rounded before the add or fused with it: |err| < 2u (|alpha x| + |y|),
 * u = 2^-24 (relative to that sum, not to a result that may cancel). */
#define EW_SAXPY_RTOL 0x1p-23

typedef cudaError_t (*ew_add_fn)(const float *a, const float *b, float *c, size_t n, cudaStream_t stream);
typedef cudaError_t (*ew_saxpy_fn)(float alpha, const float *x, float *y, size_t n, cudaStream_t stream);

typedef struct {
  const char *name;
  ew_add_fn fn;
} ew_add_variant;

typedef struct {
  const char *name;
  ew_saxpy_fn fn;
  int reference; /* a library reference (cuBLAS): reported, never the code under test */
} ew_saxpy_variant;

extern const ew_add_variant ew_add_variants[];
extern const size_t ew_add_nvariants;
extern const ew_saxpy_variant ew_saxpy_variants[];
extern const size_t ew_saxpy_nvariants;

#ifdef __cplusplus
}
#endif

#endif
