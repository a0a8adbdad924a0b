#include "kernels/matmul/matmul_variants.h"

#define U_FP32 0x1p-24 /* unit roundoff of float */
#define U_TF32 0x1p-11 /* of TF32's 10-bit mantissa */

const matmul_variant matmul_variants[] = {
    {"naive", matmul_naive, 0, 0},       {"tiled16", matmul_tiled16, 0, 0},     {"tiled32", matmul_tiled32, 0, 0},
    {"regblock", matmul_regblock, 0, 0}, {"warptile", matmul_warptile, 0, 0},   {"pipelined", matmul_pipelined, 0, 0},
    {"splitk", matmul_splitk, 0, 0},     {"tf32_wmma", matmul_tf32_wmma, 1, 0}, {"cublas", matmul_cublas, 0, 1},
};
const size_t matmul_nvariants = sizeof matmul_variants / sizeof matmul_variants[0];

double matmul_rtol(const matmul_variant *v, int K) {
  double fp32 = 2.0 * K * U_FP32;
  return v->tf32 ? 2 * U_TF32 + U_TF32 * U_TF32 + fp32 : fp32;
}
