#include "ops/matmul/gemm_kernels.h"

namespace tg {

namespace {

// c (MR,NR) = or += a_tile (MR,kc) @ b_panel (kc,NR), in plain loops the compiler
// vectorises for whatever the baseline target offers (SSE2 on x86-64).
template <class T, int MR, int NR>
void portable_kernel(int64_t kc, const T* a, int64_t a_rs, int64_t a_ks, const T* b, T* c, int64_t ldc,
                     bool accumulate) {
  T acc[MR][NR] = {};
  for (int64_t k = 0; k < kc; ++k, a += a_ks, b += NR)
    for (int i = 0; i < MR; ++i)
      for (int j = 0; j < NR; ++j) acc[i][j] += a[i * a_rs] * b[j];
  for (int i = 0; i < MR; ++i)
    for (int j = 0; j < NR; ++j) c[i * ldc + j] = accumulate ? c[i * ldc + j] + acc[i][j] : acc[i][j];
}

}  // namespace

template <>
MicroKernel<float> portable_micro_kernel<float>() {
  return {4, 8, portable_kernel<float, 4, 8>};
}

template <>
MicroKernel<double> portable_micro_kernel<double>() {
  return {4, 4, portable_kernel<double, 4, 4>};
}

}  // namespace tg
