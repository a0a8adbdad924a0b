#include "kernels/dot/dot_variants.h"

#include "kernels/common/grid_rule.h"

enum { B = DOT_BLOCK, CAP = DOT_MAX_PARTIALS, UNROLL = 4 };

/* Items per thread of the family's grid-stride loops (kernels/common/grid_rule.h). */
static size_t per_thread(size_t items, size_t per_block, size_t sms) {
  return grid_items_per_thread(items, per_block, B, CAP, sms);
}

/* log2(B) = 8 tree levels per block. */
static size_t depth_tree_host(size_t n, size_t sms) {
  /* The product, one add per grid-stride step, 8 tree levels; the host's
   * double sum of the block totals (~2^-53 each) and one rounding to float. */
  return 1 + per_thread(n, B, sms) + 8 + 2;
}
static size_t depth_tree_atomic(size_t n, size_t sms) {
  /* As above, then the block totals atomicAdded one after another, in any
   * order: up to one add per block. */
  size_t blocks = grid_ceil_div(n, B);
  return 1 + per_thread(n, B, sms) + 8 + (blocks < CAP ? blocks : CAP);
}
static size_t depth_vec4(size_t n, size_t sms) {
  /* The product, 2 levels inside a float4 pair, 2 combining 4 pairs, one add
   * per step into the running sum (<= float4s per thread, or <= elements per
   * thread on the scalar path), head and tail scalars; 10 shuffle levels; the
   * last block: CAP / B adds per thread, 10 levels. */
  return 1 + 4 + per_thread(n, UNROLL * B, sms) + 2 + 10 + grid_ceil_div(CAP, B) + 10;
}
static size_t depth_library(size_t n, size_t sms) {
  /* cuBLAS's order is its own: assumed to spread the work over at least one
   * warp per SM, with at most 64 levels of trees and finishing passes. */
  return 1 + grid_ceil_div(n, 32 * sms) + 64;
}

const dot_variant dot_variants[] = {
    {"tree_host_finish", dot_tree_host_finish, depth_tree_host, 0, 1},
    {"tree_atomic", dot_tree_atomic, depth_tree_atomic, 0, 0},
    {"shuffle_vec4", dot_shuffle_vec4, depth_vec4, 0, 0},
    {"cublas", dot_cublas, depth_library, 1, 0},
};
const size_t dot_nvariants = sizeof dot_variants / sizeof dot_variants[0];
