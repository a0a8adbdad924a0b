#include "kernels/copy/copy_variants.h"

const copy_variant copy_variants[] = {
    {"copy_float4", copy_float4, 0},
    {"copy_float4_b1024_cg", copy_float4_b1024_cg, 0},
    {"memcpy", copy_memcpy, 1},
};
const size_t copy_nvariants = sizeof copy_variants / sizeof copy_variants[0];
