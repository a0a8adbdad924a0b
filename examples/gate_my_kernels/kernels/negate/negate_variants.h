/* The variants of negate, which its Check test and benchmark loop over. Negation is exact. */
#ifndef KERNELS_NEGATE_NEGATE_VARIANTS_H
#define KERNELS_NEGATE_NEGATE_VARIANTS_H

#include <stddef.h>

#include "kernels/negate/negate.h"

typedef struct {
  const char *name;
  cudaError_t (*fn)(const float *x, float *y, size_t n, cudaStream_t stream);
} negate_variant;

extern const negate_variant negate_variants[];
extern const size_t negate_nvariants;

#endif
