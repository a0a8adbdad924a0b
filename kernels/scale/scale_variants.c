#include "kernels/scale/scale_variants.h"

const scale_variant scale_variants[] = {
    {"scale", scale},
    {"scale_float4", scale_float4},
    {"scale_device_fill", scale_device_fill},
};
const size_t scale_nvariants = sizeof scale_variants / sizeof scale_variants[0];
