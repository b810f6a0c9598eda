// The x86-64 micro-kernels of gemm_cpu (gemm_kernels.h): AVX2 + FMA (f32 6x16 and 4x24, f64 6x8
// and 4x12) and AVX-512F (f32 12x32, 8x32, 8x48 and 6x64, f64 12x16, 8x16, 8x24 and 6x32). One
// register-tile loop written with GCC vector extensions serves all: each kernel inlines it into a
// function compiled for its instruction set (the target attribute instead of a global -mavx2 /
// -mavx512f flag, so the library still runs on any x86-64; gemm_cpu calls a kernel only after the
// matching cpu_has_* check).
#include "ops/matmul/gemm_kernels.h"

#if defined(__x86_64__)

#include <cstring>

namespace tg {

namespace {

// c (Rows, Cols * lanes) = or += a_tile @ b_panel (+ bias) (then relu where Relu), with lanes =
// Bytes / sizeof(T). The tile lives in Rows * Cols vector registers; each k loads Cols vectors of
// b, broadcasts the Rows values of a in turn and issues Rows * Cols independent FMAs (enough to
// keep two FMA pipes of latency 4-5 busy). Each element of c is the same chain for every Rows and Cols: bias (or 0),
// then one multiply-add per k in order. The broadcast is `value - V{}`: `V{} + value` would keep
// a scalar add (0 + x is not x for x = -0), x - 0 is x for every x and folds away.
template <class T, int Bytes, int Rows, int Cols, bool Relu>
[[gnu::always_inline]] inline void register_tile(int64_t kc, const T* a, int64_t a_rs, int64_t a_ks, const T* b,
                                                 const T* bias, T* c, int64_t ldc, bool accumulate) {
  typedef T V __attribute__((vector_size(Bytes)));
  constexpr int L = Bytes / sizeof(T);
  V start[Cols] = {};  // every row's sums start at the bias
  if (bias) std::memcpy(start, bias, sizeof start);
  V acc[Rows][Cols];
#pragma GCC unroll 16
  for (int i = 0; i < Rows; ++i) {
#pragma GCC unroll 4
    for (int h = 0; h < Cols; ++h) acc[i][h] = start[h];
    __builtin_prefetch(c + i * ldc);
    __builtin_prefetch(c + i * ldc + Cols * L - 1);
  }
#pragma GCC unroll 2
  for (int64_t k = 0; k < kc; ++k, a += a_ks, b += Cols * L) {
    V bk[Cols];
#pragma GCC unroll 4
    for (int h = 0; h < Cols; ++h) bk[h] = *reinterpret_cast<const V*>(b + h * L);  // aligned panel
#pragma GCC unroll 16
    for (int i = 0; i < Rows; ++i) {
      const V ai = a[i * a_rs] - V{};
#pragma GCC unroll 4
      for (int h = 0; h < Cols; ++h) acc[i][h] += ai * bk[h];
    }
  }
#pragma GCC unroll 16
  for (int i = 0; i < Rows; ++i)
#pragma GCC unroll 4
    for (int h = 0; h < Cols; ++h) {
      T* out = c + i * ldc + h * L;  // c's rows need not be aligned
      V sum = acc[i][h];
      if (accumulate) {
        V old;
        std::memcpy(&old, out, sizeof old);
        sum += old;
      }
      if constexpr (Relu) sum = sum <= V{} ? V{} : sum;  // relu_math::forward per lane: NaN is not <= 0
      std::memcpy(out, &sum, sizeof sum);
    }
}

// register_tile with relu chosen once per call, so a tile without it stores as it always did.
template <class T, int Bytes, int Rows, int Cols>
[[gnu::always_inline]] inline void tile_of_call(int64_t kc, const T* a, int64_t a_rs, int64_t a_ks, const T* b,
                                                const T* bias, T* c, int64_t ldc, bool accumulate, bool relu) {
  if (relu)
    register_tile<T, Bytes, Rows, Cols, true>(kc, a, a_rs, a_ks, b, bias, c, ldc, accumulate);
  else
    register_tile<T, Bytes, Rows, Cols, false>(kc, a, a_rs, a_ks, b, bias, c, ldc, accumulate);
}

template <class T, int Rows, int Cols>
[[gnu::target("avx2,fma")]] void avx2_kernel(int64_t kc, const T* a, int64_t a_rs, int64_t a_ks, const T* b,
                                             const T* bias, T* c, int64_t ldc, bool accumulate, bool relu) {
  tile_of_call<T, 32, Rows, Cols>(kc, a, a_rs, a_ks, b, bias, c, ldc, accumulate, relu);
}

template <class T, int Rows, int Cols>
[[gnu::target("avx512f")]] void avx512_kernel(int64_t kc, const T* a, int64_t a_rs, int64_t a_ks, const T* b,
                                              const T* bias, T* c, int64_t ldc, bool accumulate, bool relu) {
  tile_of_call<T, 64, Rows, Cols>(kc, a, a_rs, a_ks, b, bias, c, ldc, accumulate, relu);
}

// A kernel of Rows x Cols vectors of `Bytes`-byte registers, as gemm_cpu sees it.
template <class T, int Bytes, int Rows, int Cols>
constexpr MicroKernel<T> tile() {
  constexpr int nr = Cols * Bytes / int(sizeof(T));
  if constexpr (Bytes == 32)
    return {Rows, nr, avx2_kernel<T, Rows, Cols>};
  else
    return {Rows, nr, avx512_kernel<T, Rows, Cols>};
}

// The tiles: at most 16 (AVX2) or 32 (AVX-512) registers for the sums, the row of b and the
// broadcast value of a.
template <class T>
constexpr MicroKernel<T> kAvx2Kernels[] = {tile<T, 32, 6, 2>(), tile<T, 32, 4, 3>()};
template <class T>
constexpr MicroKernel<T> kAvx512Kernels[] = {tile<T, 64, 12, 2>(), tile<T, 64, 8, 2>(), tile<T, 64, 8, 3>(),
                                             tile<T, 64, 6, 4>()};

}  // namespace

template <class T>
std::span<const MicroKernel<T>> avx2_micro_kernels() {
  return kAvx2Kernels<T>;
}

template <class T>
std::span<const MicroKernel<T>> avx512_micro_kernels() {
  return kAvx512Kernels<T>;
}

bool cpu_has_avx2_fma() { return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"); }
bool cpu_has_avx512f() { return __builtin_cpu_supports("avx512f"); }

}  // namespace tg

#else  // not x86-64: gemm_cpu never asks for these kernels, and these stand in for them

namespace tg {

template <class T>
std::span<const MicroKernel<T>> avx2_micro_kernels() {
  return portable_micro_kernels<T>();
}

template <class T>
std::span<const MicroKernel<T>> avx512_micro_kernels() {
  return portable_micro_kernels<T>();
}

bool cpu_has_avx2_fma() { return false; }
bool cpu_has_avx512f() { return false; }

}  // namespace tg

#endif

namespace tg {

template std::span<const MicroKernel<float>> avx2_micro_kernels<float>();
template std::span<const MicroKernel<double>> avx2_micro_kernels<double>();
template std::span<const MicroKernel<float>> avx512_micro_kernels<float>();
template std::span<const MicroKernel<double>> avx512_micro_kernels<double>();

}  // namespace tg
