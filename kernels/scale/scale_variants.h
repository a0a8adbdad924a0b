/* The variants of kernels/scale: the one table that the Check test (scale_test.c) and the
 * benchmark (scale_bench.c) both loop over. Accuracy: y = a * x is one correctly rounded product,
 * within FLOAT_UNIT_ROUNDOFF of the exact value relative to it. */
#ifndef KERNELS_SCALE_SCALE_VARIANTS_H
#define KERNELS_SCALE_SCALE_VARIANTS_H

#include <stddef.h>

#include "kernels/scale/scale.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef cudaError_t (*scale_fn)(float a, const float *x, float *y, size_t n, cudaStream_t stream);

typedef struct {
  const char *name;
  scale_fn fn;
} scale_variant;

extern const scale_variant scale_variants[];
extern const size_t scale_nvariants;

#ifdef __cplusplus
}
#endif

#endif
