// The x86-64 micro-kernels of gemm_cpu (gemm_kernels.h): AVX2 + FMA (f32 6x16, f64 6x8) and
// AVX-512F (f32 12x32, f64 12x16). One register-tile loop written with GCC vector extensions
// serves both: each kernel inlines it into a function compiled for its instruction set (the
// target attribute instead of a global -mavx2 / -mavx512f flag, so the library still runs on any
// x86-64; gemm_cpu calls a kernel only after the matching cpu_has_* check).
#include "ops/matmul/gemm_kernels.h"

#if defined(__x86_64__)

#include <cstring>

namespace tg {

namespace {

// c (Rows, 2 * lanes) = or += a_tile @ b_panel (+ bias), with lanes = Bytes / sizeof(T). The tile lives
// in 2 * Rows vector registers; each k loads two vectors of b, broadcasts the Rows values of a
// in turn and issues 2 * Rows independent FMAs (enough to keep two FMA pipes of latency 4-5
// busy). The broadcast is `value - V{}`: `V{} + value` would keep a scalar add (0 + x is not x
// for x = -0), x - 0 is x for every x and folds away.
template <class T, int Bytes, int Rows>
[[gnu::always_inline]] inline void register_tile(int64_t kc, const T* a, int64_t a_rs, int64_t a_ks, const T* b,
                                                 const T* bias, T* c, int64_t ldc, bool accumulate) {
  typedef T V __attribute__((vector_size(Bytes)));
  constexpr int L = Bytes / sizeof(T);
  V start[2] = {};  // every row's sums start at the bias
  if (bias) std::memcpy(start, bias, sizeof start);
  V acc[Rows][2];
#pragma GCC unroll 16
  for (int i = 0; i < Rows; ++i) {
    acc[i][0] = start[0];
    acc[i][1] = start[1];
    __builtin_prefetch(c + i * ldc);
    __builtin_prefetch(c + i * ldc + 2 * L - 1);
  }
#pragma GCC unroll 2
  for (int64_t k = 0; k < kc; ++k, a += a_ks, b += 2 * L) {
    const V b0 = *reinterpret_cast<const V*>(b), b1 = *reinterpret_cast<const V*>(b + L);  // aligned panel
#pragma GCC unroll 16
    for (int i = 0; i < Rows; ++i) {
      const V ai = a[i * a_rs] - V{};
      acc[i][0] += ai * b0;
      acc[i][1] += ai * b1;
    }
  }
#pragma GCC unroll 16
  for (int i = 0; i < Rows; ++i)
    for (int h = 0; h < 2; ++h) {
      T* out = c + i * ldc + h * L;  // c's rows need not be aligned
      V sum = acc[i][h];
      if (accumulate) {
        V old;
        std::memcpy(&old, out, sizeof old);
        sum += old;
      }
      std::memcpy(out, &sum, sizeof sum);
    }
}

constexpr int kAvx2Rows = 6, kAvx512Rows = 12;  // MR; NR is two vector registers

template <class T>
[[gnu::target("avx2,fma")]] void avx2_kernel(int64_t kc, const T* a, int64_t a_rs, int64_t a_ks, const T* b,
                                             const T* bias, T* c, int64_t ldc, bool accumulate) {
  register_tile<T, 32, kAvx2Rows>(kc, a, a_rs, a_ks, b, bias, c, ldc, accumulate);
}

template <class T>
[[gnu::target("avx512f")]] void avx512_kernel(int64_t kc, const T* a, int64_t a_rs, int64_t a_ks, const T* b,
                                              const T* bias, T* c, int64_t ldc, bool accumulate) {
  register_tile<T, 64, kAvx512Rows>(kc, a, a_rs, a_ks, b, bias, c, ldc, accumulate);
}

}  // namespace

template <class T>
MicroKernel<T> avx2_micro_kernel() {
  return {kAvx2Rows, 2 * 32 / int(sizeof(T)), avx2_kernel<T>};
}

template <class T>
MicroKernel<T> avx512_micro_kernel() {
  return {kAvx512Rows, 2 * 64 / int(sizeof(T)), avx512_kernel<T>};
}

bool cpu_has_avx2_fma() { return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"); }
bool cpu_has_avx512f() { return __builtin_cpu_supports("avx512f"); }

}  // namespace tg

#else  // not x86-64: gemm_cpu never asks for these kernels, and these stand in for them

namespace tg {

template <class T>
MicroKernel<T> avx2_micro_kernel() {
  return portable_micro_kernel<T>();
}

template <class T>
MicroKernel<T> avx512_micro_kernel() {
  return portable_micro_kernel<T>();
}

bool cpu_has_avx2_fma() { return false; }
bool cpu_has_avx512f() { return false; }

}  // namespace tg

#endif

namespace tg {

template MicroKernel<float> avx2_micro_kernel<float>();
template MicroKernel<double> avx2_micro_kernel<double>();
template MicroKernel<float> avx512_micro_kernel<float>();
template MicroKernel<double> avx512_micro_kernel<double>();

}  // namespace tg
