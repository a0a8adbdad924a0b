/* The variants of kernels/dot with their accuracy model: the one table that the Check test
 * (dot_test.c) and the benchmark (dot_bench.c) both loop over. */
#ifndef KERNELS_DOT_DOT_VARIANTS_H
#define KERNELS_DOT_DOT_VARIANTS_H

#include <stddef.h>

#include "kernels/dot/dot.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
  const char *name;
  dot_fn fn;
  /* The most roundings any product goes through, its own rounding included, when the variant
   * computes a dot product of length n on a device of `sms` SMs (its order is in dot.h): the
   * float result is within sum_error_bound(depth, sum |x_i y_i|) of the exact one. */
  size_t (*depth)(size_t n, size_t sms);
  int reference; /* a library reference (cuBLAS): reported, never the code under test */
  /* Its timed region waits on the host (the block totals are summed there): how long that takes is set
   * by the host, so the gate compares it with every GPU of the model, not a kind (perf/gate/compare.h). */
  int host_round_trip;
} dot_variant;

extern const dot_variant dot_variants[];
extern const size_t dot_nvariants;

#ifdef __cplusplus
}
#endif

#endif
