#include "kernels/reduce/reduce_variants.h"

#include "kernels/common/grid_rule.h"

enum { B = REDUCE_BLOCK, CAP = REDUCE_MAX_PARTIALS, UNROLL = 4 };

/* Passes of a multi-pass variant whose blocks each turn `reach` values into one. */
static size_t passes(size_t n, size_t reach) {
  size_t p = 1;
  for (size_t c = grid_ceil_div(n, reach); c > 1; c = grid_ceil_div(c, reach)) p++;
  return p;
}

/* Items per thread of the family's grid-stride loops (kernels/common/grid_rule.h). */
static size_t per_thread(size_t items, size_t per_block, size_t sms) {
  return grid_items_per_thread(items, per_block, B, CAP, sms);
}

/* log2(B) = 8 tree levels per block. */
static size_t depth_v0_v2(size_t n, size_t sms) {
  (void)sms;
  return 8 * passes(n, B); /* a tree of 8 levels per pass */
}
static size_t depth_v3_v5(size_t n, size_t sms) {
  (void)sms;
  return 9 * passes(n, 2 * B); /* + the add while loading */
}
static size_t depth_v6(size_t n, size_t sms) {
  /* 2 adds per grid-stride step, 8 tree levels; the one-block second pass over
   * <= CAP totals: 2 CAP / 2B adds per thread, 8 levels. */
  return 2 * per_thread(n, 2 * B, sms) + 8 + 2 * grid_ceil_div(CAP, 2 * B) + 8;
}
static size_t depth_v7(size_t n, size_t sms) {
  /* 2 levels inside a float4, 2 combining 4 float4s, one add per step into the
   * running sum (<= float4s per thread), head and tail scalars; 10 shuffle
   * levels; the last block: CAP / B adds per thread, 10 levels. */
  return 4 + per_thread(grid_ceil_div(n, 4), UNROLL * B, sms) + 2 + 10 + grid_ceil_div(CAP, B) + 10;
}
static size_t depth_v8(size_t n, size_t sms) {
  /* As v7 with blocks of 4B threads (10 shuffle levels either way); the last
   * block sums up to 16 fills of 2 blocks per SM. */
  return 4 + grid_items_per_thread(grid_ceil_div(n, 4), UNROLL * 4 * B, 4 * B, CAP, sms) + 2 + 10 +
      grid_ceil_div(32 * sms, 4 * B) + 10;
}
static size_t depth_library(size_t n, size_t sms) {
  /* CUB's order is its own: assumed to spread the work over at least one warp
   * per SM, with at most 64 levels of trees and finishing passes. */
  return grid_ceil_div(n, 32 * sms) + 64;
}

const reduce_variant reduce_variants[] = {
    {"v0_interleaved", reduce_v0_interleaved, depth_v0_v2, 0},
    {"v1_strided_index", reduce_v1_strided_index, depth_v0_v2, 0},
    {"v2_sequential", reduce_v2_sequential, depth_v0_v2, 0},
    {"v3_first_add_on_load", reduce_v3_first_add_on_load, depth_v3_v5, 0},
    {"v4_unroll_last_warp", reduce_v4_unroll_last_warp, depth_v3_v5, 0},
    {"v5_full_unroll", reduce_v5_full_unroll, depth_v3_v5, 0},
    {"v6_multi_add", reduce_v6_multi_add, depth_v6, 0},
    {"v7_shuffle_vec4", reduce_v7_shuffle_vec4, depth_v7, 0},
    {"v8_no_memset", reduce_v8_no_memset, depth_v8, 0},
    {"cub", reduce_cub, depth_library, 1},
};
const size_t reduce_nvariants = sizeof reduce_variants / sizeof reduce_variants[0];
