#include "ops/matmul/gemm_kernels.h"

#if defined(__x86_64__)

#include <immintrin.h>

namespace tg {

namespace {

// As in gemm_kernel_avx2.cpp: the attribute instead of a global -mavx512f flag, and gemm_cpu
// calls these only after cpu_has_avx512f().
#define TG_AVX512 __attribute__((target("avx512f")))

// One 512-bit register of T and the few operations the kernel needs on it.
template <class T>
struct Vec;

template <>
struct Vec<float> {
  using type = __m512;
  static constexpr int lanes = 16;
  TG_AVX512 static __m512 zero() { return _mm512_setzero_ps(); }
  TG_AVX512 static __m512 load(const float* p) { return _mm512_load_ps(p); }  // 64-byte aligned
  TG_AVX512 static __m512 loadu(const float* p) { return _mm512_loadu_ps(p); }
  TG_AVX512 static void storeu(float* p, __m512 x) { _mm512_storeu_ps(p, x); }
  TG_AVX512 static __m512 broadcast(const float* p) { return _mm512_set1_ps(*p); }
  TG_AVX512 static __m512 fma(__m512 x, __m512 y, __m512 z) { return _mm512_fmadd_ps(x, y, z); }
  TG_AVX512 static __m512 add(__m512 x, __m512 y) { return _mm512_add_ps(x, y); }
};

template <>
struct Vec<double> {
  using type = __m512d;
  static constexpr int lanes = 8;
  TG_AVX512 static __m512d zero() { return _mm512_setzero_pd(); }
  TG_AVX512 static __m512d load(const double* p) { return _mm512_load_pd(p); }  // 64-byte aligned
  TG_AVX512 static __m512d loadu(const double* p) { return _mm512_loadu_pd(p); }
  TG_AVX512 static void storeu(double* p, __m512d x) { _mm512_storeu_pd(p, x); }
  TG_AVX512 static __m512d broadcast(const double* p) { return _mm512_set1_pd(*p); }
  TG_AVX512 static __m512d fma(__m512d x, __m512d y, __m512d z) { return _mm512_fmadd_pd(x, y, z); }
  TG_AVX512 static __m512d add(__m512d x, __m512d y) { return _mm512_add_pd(x, y); }
};

constexpr int kRows = 12;  // MR; NR is two registers: 32 floats or 16 doubles

// c (12, 2*lanes) = or += a_tile @ b_panel. The tile lives in 24 of the 32 zmm registers;
// each k loads two registers of b, broadcasts the twelve values of a in turn (the compiler
// folds each broadcast into its FMA's memory operand) and issues 24 independent FMAs.
template <class T>
TG_AVX512 void avx512_kernel(int64_t kc, const T* a, int64_t a_rs, int64_t a_ks, const T* b, T* c, int64_t ldc,
                             bool accumulate) {
  using V = Vec<T>;
  constexpr int L = V::lanes;
  typename V::type acc[kRows][2];
#pragma GCC unroll 12
  for (int i = 0; i < kRows; ++i) {
    acc[i][0] = acc[i][1] = V::zero();
    _mm_prefetch(reinterpret_cast<const char*>(c + i * ldc), _MM_HINT_T0);
    _mm_prefetch(reinterpret_cast<const char*>(c + i * ldc + 2 * L - 1), _MM_HINT_T0);
  }
#pragma GCC unroll 2
  for (int64_t k = 0; k < kc; ++k, a += a_ks, b += 2 * L) {
    const typename V::type b0 = V::load(b), b1 = V::load(b + L);
#pragma GCC unroll 12
    for (int i = 0; i < kRows; ++i) {
      const typename V::type ai = V::broadcast(a + i * a_rs);
      acc[i][0] = V::fma(ai, b0, acc[i][0]);
      acc[i][1] = V::fma(ai, b1, acc[i][1]);
    }
  }
#pragma GCC unroll 12
  for (int i = 0; i < kRows; ++i) {
    T* ci = c + i * ldc;
    if (accumulate) {
      acc[i][0] = V::add(acc[i][0], V::loadu(ci));
      acc[i][1] = V::add(acc[i][1], V::loadu(ci + L));
    }
    V::storeu(ci, acc[i][0]);
    V::storeu(ci + L, acc[i][1]);
  }
}

}  // namespace

template <>
MicroKernel<float> avx512_micro_kernel<float>() {
  return {kRows, 2 * Vec<float>::lanes, avx512_kernel<float>};
}

template <>
MicroKernel<double> avx512_micro_kernel<double>() {
  return {kRows, 2 * Vec<double>::lanes, avx512_kernel<double>};
}

bool cpu_has_avx512f() { return __builtin_cpu_supports("avx512f"); }

}  // namespace tg

#else  // not x86-64: no AVX-512, gemm_cpu never asks for this kernel

namespace tg {

template <>
MicroKernel<float> avx512_micro_kernel<float>() {
  return portable_micro_kernel<float>();
}

template <>
MicroKernel<double> avx512_micro_kernel<double>() {
  return portable_micro_kernel<double>();
}

bool cpu_has_avx512f() { return false; }

}  // namespace tg

#endif
