/* The variants of histogram, which its Check test and benchmark loop over. Counts are exact. */
#ifndef KERNELS_HISTOGRAM_HISTOGRAM_VARIANTS_H
#define KERNELS_HISTOGRAM_HISTOGRAM_VARIANTS_H

#include <stddef.h>

#include "kernels/histogram/histogram.h"

typedef struct {
  const char *name;
  cudaError_t (*fn)(const uint8_t *x, int32_t *counts, size_t n, cudaStream_t stream);
} histogram_variant;

extern const histogram_variant histogram_variants[];
extern const size_t histogram_nvariants;

#endif
