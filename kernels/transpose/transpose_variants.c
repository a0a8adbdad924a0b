#include "kernels/transpose/transpose_variants.h"

const transpose_variant transpose_variants[] = {
    {"naive_row", transpose_naive_row, 0},           {"naive_col", transpose_naive_col, 0},
    {"unroll4_row", transpose_unroll4_row, 0},       {"unroll4_col", transpose_unroll4_col, 0},
    {"smem_tiled", transpose_smem_tiled, 0},         {"smem_padded", transpose_smem_padded, 0},
    {"tile64_vec", transpose_tile64_vec, 0},         {"out_order", transpose_out_order, 0},
    {"out_order_wide", transpose_out_order_wide, 0}, {"cublas", transpose_cublas, 1},
};
const size_t transpose_nvariants = sizeof transpose_variants / sizeof transpose_variants[0];
