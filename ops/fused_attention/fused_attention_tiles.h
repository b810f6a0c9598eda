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
constexpr int64_t kBlockK = 128;  // keys per tile

// The two loops that do the arithmetic, register-blocked without intrinsics: fixed-size inner
// loops and GCC vector extensions of `Bytes` bytes that the compiler keeps in registers. Each
// body is compiled three times: with 64-byte vectors inlined into a target("avx512f") function,
// run where cpu_has_avx512f(), with 32-byte ones into a target("avx2,fma") one, run where
// cpu_has_avx2_fma() (the checks the GEMM uses), and as baseline x86-64 code (SSE2: a 32-byte
// vector becomes two registers).
#if defined(__x86_64__) && defined(__GNUC__)
#define TG_INLINE_BODY [[gnu::always_inline]] inline
#define TG_AVX2_FMA __attribute__((target("avx2,fma")))
#define TG_AVX512 __attribute__((target("avx512f")))
#define TG_HAS_AVX_PATHS 1
#else
#define TG_INLINE_BODY inline
#define TG_HAS_AVX_PATHS 0
#endif

template <class T, int Bytes>
struct VecN {
  typedef T type __attribute__((vector_size(Bytes)));
};
template <class T, int Bytes>
constexpr int64_t kLanes = Bytes / sizeof(T);  // elements of T in one vector of Bytes bytes

// c (rows, kBlockK) = a_r . bt[:, j] for r < rows and j < cols, rounded up to a block of columns
// (= writes; the rest of c is left alone); a_r = a[r] (depth elements), bt (depth, kBlockK).
// Four rows at a time share each load of bt; two vectors of columns per row make eight
// independent chains of FMAs, enough to hide their latency.
template <class T, int Bytes>
TG_INLINE_BODY void tile_product_body(T* c, const T* const* a, const T* bt, int64_t rows, int64_t cols, int64_t depth) {
  constexpr int64_t kRows = 4, kCols = 2 * kLanes<T, Bytes>;
  static_assert(kBlockK % kCols == 0);
  for (int64_t r0 = 0; r0 < rows; r0 += kRows) {
    const T* ar[kRows];
    for (int64_t i = 0; i < kRows; ++i) ar[i] = a[std::min(r0 + i, rows - 1)];  // a tail repeats the last row
    for (int64_t c0 = 0; c0 < cols; c0 += kCols) {
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

// y[0..width) += sum_{r < count} w[r * w_stride] * x[r][0..width) (+= accumulates), 2 * kLanes
// elements at a time (then one vector, then single elements) while the rows stream past, in four
// partial sums (rows r % 4): eight independent chains of FMAs, enough to hide their latency.
template <class T, int Bytes>
TG_INLINE_BODY void accumulate_rows_body(T* y, const T* w, int64_t w_stride, const T* const* x, int64_t count,
                                         int64_t width) {
  using V = typename VecN<T, Bytes>::type;
  constexpr int64_t kL = kLanes<T, Bytes>, kParts = 4;
  int64_t d0 = 0;
  for (; d0 + 2 * kL <= width; d0 += 2 * kL) {
    V part[kParts][2] = {}, x0, x1;
    int64_t r = 0;
    for (; r + kParts <= count; r += kParts)
      for (int64_t u = 0; u < kParts; ++u) {
        const V wr = w[(r + u) * w_stride] - V{};  // a broadcast (x - 0 is x; 0 + x is not, for -0)
        std::memcpy(&x0, x[r + u] + d0, sizeof x0);
        std::memcpy(&x1, x[r + u] + d0 + kL, sizeof x1);
        part[u][0] += wr * x0;
        part[u][1] += wr * x1;
      }
    for (; r < count; ++r) {
      const V wr = w[r * w_stride] - V{};
      std::memcpy(&x0, x[r] + d0, sizeof x0);
      std::memcpy(&x1, x[r] + d0 + kL, sizeof x1);
      part[0][0] += wr * x0;
      part[0][1] += wr * x1;
    }
    V y0, y1;
    std::memcpy(&y0, y + d0, sizeof y0);
    std::memcpy(&y1, y + d0 + kL, sizeof y1);
    y0 += (part[0][0] + part[1][0]) + (part[2][0] + part[3][0]);
    y1 += (part[0][1] + part[1][1]) + (part[2][1] + part[3][1]);
    std::memcpy(y + d0, &y0, sizeof y0);
    std::memcpy(y + d0 + kL, &y1, sizeof y1);
  }
  if (d0 + kL <= width) {  // one vector left
    V a0, x0;
    std::memcpy(&a0, y + d0, sizeof a0);
    for (int64_t r = 0; r < count; ++r) {
      std::memcpy(&x0, x[r] + d0, sizeof x0);
      a0 += (w[r * w_stride] - V{}) * x0;
    }
    std::memcpy(y + d0, &a0, sizeof a0);
    d0 += kL;
  }
  for (; d0 < width; ++d0)
    for (int64_t r = 0; r < count; ++r) y[d0] += w[r * w_stride] * x[r][d0];
}

#if TG_HAS_AVX_PATHS
template <class T>
TG_AVX512 void tile_product_avx512(T* c, const T* const* a, const T* bt, int64_t rows, int64_t cols, int64_t depth) {
  tile_product_body<T, 64>(c, a, bt, rows, cols, depth);
}
template <class T>
TG_AVX512 void accumulate_rows_avx512(T* y, const T* w, int64_t w_stride, const T* const* x, int64_t count,
                                      int64_t width) {
  accumulate_rows_body<T, 64>(y, w, w_stride, x, count, width);
}
template <class T>
TG_AVX2_FMA void tile_product_avx2(T* c, const T* const* a, const T* bt, int64_t rows, int64_t cols, int64_t depth) {
  tile_product_body<T, 32>(c, a, bt, rows, cols, depth);
}
template <class T>
TG_AVX2_FMA void accumulate_rows_avx2(T* y, const T* w, int64_t w_stride, const T* const* x, int64_t count,
                                      int64_t width) {
  accumulate_rows_body<T, 32>(y, w, w_stride, x, count, width);
}

// The widest path this CPU runs, checked at the first call, not in a static initializer (before
// libgcc's CPU probe).
enum class TilePath { avx512, avx2, baseline };
inline TilePath tile_path() {
  static const TilePath path = cpu_has_avx512f()    ? TilePath::avx512
                               : cpu_has_avx2_fma() ? TilePath::avx2
                                                    : TilePath::baseline;
  return path;
}
#endif

template <class T>
void tile_product(T* c, const T* const* a, const T* bt, int64_t rows, int64_t cols, int64_t depth) {
#if TG_HAS_AVX_PATHS
  if (tile_path() == TilePath::avx512) return tile_product_avx512(c, a, bt, rows, cols, depth);
  if (tile_path() == TilePath::avx2) return tile_product_avx2(c, a, bt, rows, cols, depth);
#endif
  tile_product_body<T, 32>(c, a, bt, rows, cols, depth);
}

template <class T>
void accumulate_rows(T* y, const T* w, int64_t w_stride, const T* const* x, int64_t count, int64_t width) {
#if TG_HAS_AVX_PATHS
  if (tile_path() == TilePath::avx512) return accumulate_rows_avx512(y, w, w_stride, x, count, width);
  if (tile_path() == TilePath::avx2) return accumulate_rows_avx2(y, w, w_stride, x, count, width);
#endif
  accumulate_rows_body<T, 32>(y, w, w_stride, x, count, width);
}

// bt (width, kBlockK): bt[d][j] = x[j][d] for j < count (= writes), so that tile_product runs
// over keys with unit stride.
template <class T>
void transpose_rows(T* bt, const T* const* x, int64_t count, int64_t width) {
  for (int64_t j = 0; j < count; ++j)
    for (int64_t d = 0; d < width; ++d) bt[d * kBlockK + j] = x[j][d];
}

}  // namespace tg::fused_attention_tiles
