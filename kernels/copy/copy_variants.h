/* The variants of kernels/copy: the one table that the Check test (copy_test.c) and the
 * benchmark (copy_bench.c) both loop over. A copy does no arithmetic: it must be bit-exact. */
#ifndef KERNELS_COPY_COPY_VARIANTS_H
#define KERNELS_COPY_COPY_VARIANTS_H

#include <stddef.h>

#include "kernels/copy/copy.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef cudaError_t (*copy_fn)(const float *src, float *dst, size_t n, cudaStream_t stream);

typedef struct {
  const char *name;
  copy_fn fn;
  int reference; /* a library reference, the driver's copy (cudaMemcpy): reported, never the code under test */
} copy_variant;

extern const copy_variant copy_variants[];
extern const size_t copy_nvariants;

#ifdef __cplusplus
}
#endif

#endif
