#include "kernels/elementwise/elementwise_variants.h"

const ew_add_variant ew_add_variants[] = {
    {"add", ew_add},
    {"add_float4", ew_add_float4},
};
const size_t ew_add_nvariants = sizeof ew_add_variants / sizeof ew_add_variants[0];

const ew_saxpy_variant ew_saxpy_variants[] = {
    {"saxpy", ew_saxpy, 0},
    {"saxpy_float4", ew_saxpy_float4, 0},
    {"cublas_saxpy", ew_saxpy_cublas, 1},
};
const size_t ew_saxpy_nvariants = sizeof ew_saxpy_variants / sizeof ew_saxpy_variants[0];
