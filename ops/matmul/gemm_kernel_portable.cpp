#include "ops/matmul/gemm_kernels.h"

#include <cstring>

#include "ops/relu/relu_math.h"

namespace tg {

namespace {

// 16 bytes of T as one value of the GCC/Clang vector extension: SSE2 registers on x86-64,
// NEON on Arm, pairs of scalars where there is no SIMD. may_alias: read straight from the
// packed panels (16-byte aligned).
template <class T>
struct Vec16;
template <>
struct Vec16<float> {
  typedef float type __attribute__((vector_size(16), may_alias));
};
template <>
struct Vec16<double> {
  typedef double type __attribute__((vector_size(16), may_alias));
};

// c (MR,NR) = or += a_tile (MR,kc) @ b_panel (kc,NR) (+ bias) (then relu): the tile in
// MR * NR/lanes vector accumulators, each k one broadcast value of a per row times the vectors of
// b's row.
template <class T, int MR, int NR>
void portable_kernel(int64_t kc, const T* a, int64_t a_rs, int64_t a_ks, const T* b, const T* bias, T* c,
                     int64_t ldc, bool accumulate, bool relu) {
  using V = typename Vec16<T>::type;
  constexpr int L = 16 / sizeof(T), NV = NR / L;
  static_assert(NR % L == 0);
  V start[NV] = {};  // every row's sums start at the bias
  if (bias) std::memcpy(start, bias, sizeof start);
  V acc[MR][NV];
  for (int i = 0; i < MR; ++i)
    for (int v = 0; v < NV; ++v) acc[i][v] = start[v];
  for (int64_t k = 0; k < kc; ++k, a += a_ks, b += NR) {
    const V* bk = reinterpret_cast<const V*>(b);
#pragma GCC unroll 8
    for (int i = 0; i < MR; ++i) {
      const T ai = a[i * a_rs];
#pragma GCC unroll 8
      for (int v = 0; v < NV; ++v) acc[i][v] += ai * bk[v];
    }
  }
  for (int i = 0; i < MR; ++i)
    for (int j = 0; j < NR; ++j) {
      const T sum = acc[i][j / L][j % L];
      const T out = accumulate ? c[i * ldc + j] + sum : sum;
      c[i * ldc + j] = relu ? relu_math::forward(out) : out;
    }
}

}  // namespace

template <>
std::span<const MicroKernel<float>> portable_micro_kernels<float>() {
  static constexpr MicroKernel<float> kernels[] = {{4, 8, portable_kernel<float, 4, 8>}};
  return kernels;
}

template <>
std::span<const MicroKernel<double>> portable_micro_kernels<double>() {
  static constexpr MicroKernel<double> kernels[] = {{6, 4, portable_kernel<double, 6, 4>}};
  return kernels;
}

}  // namespace tg
