#include "kernels/histogram/histogram_variants.h"

const histogram_variant histogram_variants[] = {
    {"global", histogram_global},
    {"shared", histogram_shared},
    {"shared_uint4", histogram_shared_uint4},
};
const size_t histogram_nvariants = sizeof histogram_variants / sizeof histogram_variants[0];
