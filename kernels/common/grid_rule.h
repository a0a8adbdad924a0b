/* The grid rule of the reduce and dot launchers, for their accuracy models (host C): a grid-stride
 * loop over `items` runs on min(device fill, ceil(items / per_block), cap) blocks of `block`
 * threads, i.e. on the work's own grid (per_block / block items per thread) or on a capped one of
 * at least min(SMs, cap) blocks (a device fill is >= 1 block per SM). */
#ifndef KERNELS_COMMON_GRID_RULE_H
#define KERNELS_COMMON_GRID_RULE_H

#include <stddef.h>

static inline size_t grid_ceil_div(size_t a, size_t b) { return (a + b - 1) / b; }

/* The most items any thread of that loop takes. */
static inline size_t grid_items_per_thread(size_t items, size_t per_block, size_t block, size_t cap, size_t sms) {
  size_t own = grid_ceil_div(per_block, block), min_grid = sms < cap ? sms : cap;
  size_t capped = grid_ceil_div(items, min_grid * block);
  return own > capped ? own : capped;
}

#endif
