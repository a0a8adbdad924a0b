#include "kernels/negate/negate_variants.h"

const negate_variant negate_variants[] = {
    {"negate", negate},
};
const size_t negate_nvariants = sizeof negate_variants / sizeof negate_variants[0];
