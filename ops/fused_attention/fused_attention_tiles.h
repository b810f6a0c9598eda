#pragma once
// The loops that do fused_attention_cpu.cpp's arithmetic on one (kBlockQ, kBlockK) tile:
// tile_product (scores, dout . v), accumulate_rows (weights @ v, dq, dk, dv) and
// transpose_rows. Internal to ops/fused_attention.
#include <algorithm>
#include <cstdint>
#include <cstring>

#include "ops/matmul/gemm_kernels.h"

namespace tg::fused_attention_tiles {

constexpr int64_t kBlockQ = 32;  // query rows per work item
constexpr int64_t kBlockK = 64;  // keys per tile

// The two loops that do the arithmetic, register-blocked without intrinsics: fixed-size inner
// loops and GCC vector extensions that the compiler keeps in registers. Each body is compiled
// twice: inlined into a target("avx2,fma") function, run where cpu_has_avx2_fma() (the check
// the GEMM uses), and as baseline x86-64 code (SSE2: a 32-byte vector becomes two registers).
#if defined(__x86_64__) && defined(__GNUC__)
#define TG_INLINE_BODY [[gnu::always_inline]] inline
#define TG_AVX2_FMA __attribute__((target("avx2,fma")))
#define TG_HAS_AVX2_PATH 1
#else
#define TG_INLINE_BODY inline
#define TG_HAS_AVX2_PATH 0
#endif

template <class T>
struct Vec32 {
  typedef T type __attribute__((vector_size(32)));
};
template <class T>
constexpr int64_t kLanes = 32 / sizeof(T);  // elements of T in one 32-byte vector

// c (rows, kBlockK) = a_r . bt[:, j] for r < rows and every j < kBlockK (= writes); a_r = a[r]
// (depth elements), bt (depth, kBlockK). Four rows at a time share each load of bt.
template <class T>
TG_INLINE_BODY void tile_product_body(T* c, const T* const* a, const T* bt, int64_t rows, int64_t depth) {
  constexpr int64_t kRows = 4, kCols = kLanes<T>;
  for (int64_t r0 = 0; r0 < rows; r0 += kRows) {
    const T* ar[kRows];
    for (int64_t i = 0; i < kRows; ++i) ar[i] = a[std::min(r0 + i, rows - 1)];  // a tail repeats the last row
    for (int64_t c0 = 0; c0 < kBlockK; c0 += kCols) {
      T acc[kRows][kCols] = {};
      for (int64_t d = 0; d < depth; ++d) {
        const T* b = bt + d * kBlockK + c0;
        for (int64_t i = 0; i < kRows; ++i) {
          const T x = ar[i][d];
#pragma omp simd
          for (int64_t j = 0; j < kCols; ++j) acc[i][j] += x * b[j];
        }
      }
      for (int64_t i = 0; i < kRows && r0 + i < rows; ++i) std::copy(acc[i], acc[i] + kCols, c + (r0 + i) * kBlockK + c0);
    }
  }
}

// y[0..width) += sum_{r < count} w[r * w_stride] * x[r][0..width) (+= accumulates); y is held
// in two vectors, 2 * kLanes elements at a time, while the rows stream past.
template <class T>
TG_INLINE_BODY void accumulate_rows_body(T* y, const T* w, int64_t w_stride, const T* const* x, int64_t count,
                                         int64_t width) {
  using V = typename Vec32<T>::type;
  constexpr int64_t kL = kLanes<T>;
  int64_t d0 = 0;
  for (; d0 + 2 * kL <= width; d0 += 2 * kL) {
    V a0, a1, x0, x1;
    std::memcpy(&a0, y + d0, sizeof a0);
    std::memcpy(&a1, y + d0 + kL, sizeof a1);
    for (int64_t r = 0; r < count; ++r) {
      const V wr = V{} + w[r * w_stride];
      std::memcpy(&x0, x[r] + d0, sizeof x0);
      std::memcpy(&x1, x[r] + d0 + kL, sizeof x1);
      a0 += wr * x0;
      a1 += wr * x1;
    }
    std::memcpy(y + d0, &a0, sizeof a0);
    std::memcpy(y + d0 + kL, &a1, sizeof a1);
  }
  for (; d0 < width; ++d0)
    for (int64_t r = 0; r < count; ++r) y[d0] += w[r * w_stride] * x[r][d0];
}

#if TG_HAS_AVX2_PATH
template <class T>
TG_AVX2_FMA void tile_product_avx2(T* c, const T* const* a, const T* bt, int64_t rows, int64_t depth) {
  tile_product_body(c, a, bt, rows, depth);
}
template <class T>
TG_AVX2_FMA void accumulate_rows_avx2(T* y, const T* w, int64_t w_stride, const T* const* x, int64_t count,
                                      int64_t width) {
  accumulate_rows_body(y, w, w_stride, x, count, width);
}

inline bool use_avx2() {  // checked at the first call, not in a static initializer (before libgcc's CPU probe)
  static const bool yes = cpu_has_avx2_fma();
  return yes;
}
#endif

template <class T>
void tile_product(T* c, const T* const* a, const T* bt, int64_t rows, int64_t depth) {
#if TG_HAS_AVX2_PATH
  if (use_avx2()) return tile_product_avx2(c, a, bt, rows, depth);
#endif
  tile_product_body(c, a, bt, rows, depth);
}

template <class T>
void accumulate_rows(T* y, const T* w, int64_t w_stride, const T* const* x, int64_t count, int64_t width) {
#if TG_HAS_AVX2_PATH
  if (use_avx2()) return accumulate_rows_avx2(y, w, w_stride, x, count, width);
#endif
  accumulate_rows_body(y, w, w_stride, x, count, width);
}

// bt (width, kBlockK): bt[d][j] = x[j][d] for j < count (= writes), so that tile_product runs
// over keys with unit stride.
template <class T>
void transpose_rows(T* bt, const T* const* x, int64_t count, int64_t width) {
  for (int64_t j = 0; j < count; ++j)
    for (int64_t d = 0; d < width; ++d) bt[d * kBlockK + j] = x[j][d];
}

}  // namespace tg::fused_attention_tiles
