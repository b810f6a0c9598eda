#include "ops/matmul/gemm_kernels.h"

#if defined(__x86_64__)

#include <immintrin.h>

namespace tg {

namespace {

// Every function here that uses AVX2 or FMA instructions carries this attribute instead of a
// global -mavx2 flag: the library still runs on any x86-64, and gemm_cpu calls these only
// after cpu_has_avx2_fma().
#define TG_AVX2_FMA __attribute__((target("avx2,fma")))

// One 256-bit register of T and the few operations the kernel needs on it.
template <class T>
struct Vec;

template <>
struct Vec<float> {
  using type = __m256;
  static constexpr int lanes = 8;
  TG_AVX2_FMA static __m256 zero() { return _mm256_setzero_ps(); }
  TG_AVX2_FMA static __m256 load(const float* p) { return _mm256_load_ps(p); }  // 32-byte aligned
  TG_AVX2_FMA static __m256 loadu(const float* p) { return _mm256_loadu_ps(p); }
  TG_AVX2_FMA static void storeu(float* p, __m256 x) { _mm256_storeu_ps(p, x); }
  TG_AVX2_FMA static __m256 broadcast(const float* p) { return _mm256_broadcast_ss(p); }
  TG_AVX2_FMA static __m256 fma(__m256 x, __m256 y, __m256 z) { return _mm256_fmadd_ps(x, y, z); }
  TG_AVX2_FMA static __m256 add(__m256 x, __m256 y) { return _mm256_add_ps(x, y); }
};

template <>
struct Vec<double> {
  using type = __m256d;
  static constexpr int lanes = 4;
  TG_AVX2_FMA static __m256d zero() { return _mm256_setzero_pd(); }
  TG_AVX2_FMA static __m256d load(const double* p) { return _mm256_load_pd(p); }  // 32-byte aligned
  TG_AVX2_FMA static __m256d loadu(const double* p) { return _mm256_loadu_pd(p); }
  TG_AVX2_FMA static void storeu(double* p, __m256d x) { _mm256_storeu_pd(p, x); }
  TG_AVX2_FMA static __m256d broadcast(const double* p) { return _mm256_broadcast_sd(p); }
  TG_AVX2_FMA static __m256d fma(__m256d x, __m256d y, __m256d z) { return _mm256_fmadd_pd(x, y, z); }
  TG_AVX2_FMA static __m256d add(__m256d x, __m256d y) { return _mm256_add_pd(x, y); }
};

constexpr int kRows = 6;  // MR; NR is two registers: 16 floats or 8 doubles

// c (6, 2*lanes) = or += a_tile @ b_panel. The tile lives in 12 of the 16 ymm registers;
// each k loads two registers of b, broadcasts the six values of a in turn and issues 12
// independent FMAs (enough to keep two FMA pipes of latency 4-5 busy).
template <class T>
TG_AVX2_FMA void avx2_kernel(int64_t kc, const T* a, int64_t a_rs, int64_t a_ks, const T* b, T* c, int64_t ldc,
                             bool accumulate) {
  using V = Vec<T>;
  constexpr int L = V::lanes;
  typename V::type acc[kRows][2];
#pragma GCC unroll 6
  for (int i = 0; i < kRows; ++i) {
    acc[i][0] = acc[i][1] = V::zero();
    _mm_prefetch(reinterpret_cast<const char*>(c + i * ldc), _MM_HINT_T0);
    _mm_prefetch(reinterpret_cast<const char*>(c + i * ldc + 2 * L - 1), _MM_HINT_T0);
  }
#pragma GCC unroll 4
  for (int64_t k = 0; k < kc; ++k, a += a_ks, b += 2 * L) {
    const typename V::type b0 = V::load(b), b1 = V::load(b + L);
#pragma GCC unroll 6
    for (int i = 0; i < kRows; ++i) {
      const typename V::type ai = V::broadcast(a + i * a_rs);
      acc[i][0] = V::fma(ai, b0, acc[i][0]);
      acc[i][1] = V::fma(ai, b1, acc[i][1]);
    }
  }
#pragma GCC unroll 6
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
MicroKernel<float> avx2_micro_kernel<float>() {
  return {kRows, 2 * Vec<float>::lanes, avx2_kernel<float>};
}

template <>
MicroKernel<double> avx2_micro_kernel<double>() {
  return {kRows, 2 * Vec<double>::lanes, avx2_kernel<double>};
}

bool cpu_has_avx2_fma() { return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"); }

}  // namespace tg

#else  // not x86-64: no AVX2, gemm_cpu always takes the portable kernel

namespace tg {

template <>
MicroKernel<float> avx2_micro_kernel<float>() {
  return portable_micro_kernel<float>();
}

template <>
MicroKernel<double> avx2_micro_kernel<double>() {
  return portable_micro_kernel<double>();
}

bool cpu_has_avx2_fma() { return false; }

}  // namespace tg

#endif
