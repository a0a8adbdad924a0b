/* The variants of kernels/reduce, in ladder order, with their accuracy model: the one table that
 * the Check test (reduce_test.c) and the benchmark (reduce_bench.c) both loop over. */
#ifndef KERNELS_REDUCE_REDUCE_VARIANTS_H
#define KERNELS_REDUCE_REDUCE_VARIANTS_H

#include <stddef.h>

#include "kernels/reduce/reduce.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
  const char *name;
  reduce_fn fn;
  /* The most roundings any element goes through (tree levels plus sequential additions) when the
   * variant sums n floats on a device of `sms` SMs (its summation order is in reduce.h): the
   * float sum is within sum_error_bound(depth, sum |x_i|) of the exact one. */
  size_t (*depth)(size_t n, size_t sms);
  int reference; /* a library reference (CUB): reported, never the code under test */
} reduce_variant;

extern const reduce_variant reduce_variants[];
extern const size_t reduce_nvariants;

#ifdef __cplusplus
}
#endif

#endif
