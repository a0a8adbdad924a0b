#include "kernels/matmul/matmul_variants.h"

#define U_FP32 0x1p-24 /* unit roundoff of float */
#define U_TF32 0x1p-11 /* of TF32's 10-bit mantissa */

const matmul_variant matmul_variants[] = {
    /* the fp32 ladder */
    {"naive", matmul_naive, MATMUL_FP32, 0},
    {"tiled16", matmul_tiled16, MATMUL_FP32, 0},
    {"tiled32", matmul_tiled32, MATMUL_FP32, 0},
    {"regblock", matmul_regblock, MATMUL_FP32, 0},
    {"warptile", matmul_warptile, MATMUL_FP32, 0},
    {"pipelined", matmul_pipelined, MATMUL_FP32, 0},
    {"wide", matmul_wide, MATMUL_FP32, 0},
    {"splitk", matmul_splitk, MATMUL_FP32, 0},
    /* the TF32 tensor-core ladder */
    {"tf32_wmma", matmul_tf32_wmma, MATMUL_TF32_ROUND, 0},
    {"tf32_mma", matmul_tf32_mma, MATMUL_TF32_ROUND, 0},
    {"tf32_wgmma", matmul_tf32_wgmma, MATMUL_TF32_TRUNC, 0},
    {"tf32_wgmma_rs", matmul_tf32_wgmma_rs, MATMUL_TF32_TRUNC, 0},
    /* library references */
    {"cublas", matmul_cublas, MATMUL_FP32, 1},
    {"cublas_tf32", matmul_cublas_tf32, MATMUL_TF32_TRUNC, 1},
};
const size_t matmul_nvariants = sizeof matmul_variants / sizeof matmul_variants[0];

double matmul_rtol(const matmul_variant *v, int K) {
  double fp32 = 2.0 * K * U_FP32;
  switch (v->inputs) {
    case MATMUL_TF32_ROUND: return 2 * U_TF32 + U_TF32 * U_TF32 + fp32;
    case MATMUL_TF32_TRUNC: return 4 * U_TF32 + 4 * U_TF32 * U_TF32 + fp32;
    case MATMUL_FP32: break;
  }
  return fp32;
}
