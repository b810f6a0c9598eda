#pragma once
// The products of fused_attention_cpu.cpp on one (kBlockQ, kBlockK) tile, all of one form,
// tile_gemm: c (rows, width) = or += scale * a (rows, depth) . b (depth, width), with a read through
// strides (a row-major tile, its transpose or rows of q) and b's rows at a stride (rows of k,
// v, q, dout, or a transposed tile). TransposedTiles keeps k and v transposed for the scores.
// Internal to ops/fused/fused_attention.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <type_traits>
#include <vector>

#include "ops/common/vec_math.h"
#include "ops/matmul/gemm_kernels.h"

namespace tg::fused_attention_tiles {

constexpr int64_t kBlockQ = 32;   // query rows per work item
constexpr int64_t kBlockK = 128;  // keys per tile

// The loop is register-blocked without intrinsics: fixed-size inner loops and GCC vector
// extensions of `Bytes` bytes that the compiler keeps in registers. It is compiled three times:
// with 64-byte vectors inlined into a target("avx512f") function, run where cpu_has_avx512f(),
// with 32-byte ones into a target("avx2,fma") one, run where cpu_has_avx2_fma() (the checks the
// GEMM uses), and as baseline x86-64 code (SSE2: a 32-byte vector becomes two registers).
#if defined(__x86_64__) && defined(__GNUC__)
#define TG_INLINE_BODY [[gnu::always_inline]] inline
#define TG_AVX2_FMA __attribute__((target("avx2,fma")))
#define TG_AVX512 __attribute__((target("avx512f")))
#define TG_HAS_AVX_PATHS 1
#else
#define TG_INLINE_BODY inline
#define TG_HAS_AVX_PATHS 0
#endif

// One register block of tile_gemm: Rows rows (a(i, k) at a[row_off[i] + k*a_ks]) x Vecs vectors
// of columns. One pointer walks along k; the rows are fixed offsets from it, so a step of k
// costs one add, not one per row.
// Each k loads Vecs vectors of b's row k, broadcasts the Rows values of a in turn and issues
// Rows * Vecs independent FMAs. The broadcast is `x - V{}`: x - 0 is x for every x and folds
// away, V{} + x would keep a scalar add (0 + x is not x for x = -0).
template <class T, int Bytes, int Rows, int Vecs>
TG_INLINE_BODY void register_block(T* c, int64_t ldc, const T* a, const int64_t* row_off, int64_t a_ks, const T* b,
                                   int64_t ldb, int64_t rows, int64_t depth, T scale, bool accumulate) {
  using V = typename VecN<T, Bytes>::type;
  constexpr int64_t L = Bytes / sizeof(T);
  V acc[Rows][Vecs];
#pragma GCC unroll 16
  for (int i = 0; i < Rows; ++i)
    for (int v = 0; v < Vecs; ++v) acc[i][v] = V{};
  for (int64_t k = 0; k < depth; ++k, a += a_ks, b += ldb) {
    V bk[Vecs];
    for (int v = 0; v < Vecs; ++v) std::memcpy(&bk[v], b + v * L, sizeof(V));
#pragma GCC unroll 16
    for (int i = 0; i < Rows; ++i) {
      const V ai = a[row_off[i]] - V{};
      for (int v = 0; v < Vecs; ++v) acc[i][v] += ai * bk[v];
    }
  }
#pragma GCC unroll 16
  for (int i = 0; i < Rows; ++i)  // a fixed count (the tile stays in registers), stopping at rows
    for (int v = 0; v < Vecs && i < rows; ++v) {
      T* out = c + i * ldc + v * L;
      V sum = acc[i][v] * scale;
      if (accumulate) {
        V old;
        std::memcpy(&old, out, sizeof old);
        sum += old;
      }
      std::memcpy(out, &sum, sizeof sum);
    }
}

// c[i*ldc + j] = or += scale * sum_{k < depth} a[i*a_rs + k*a_ks] * b[k*ldb + j] for i < rows, j < width:
// blocks of Rows rows (a tail block repeats its last row of a and stores only its own rows),
// two vectors of columns at a time, then one, then single columns.
template <class T, int Bytes, int Rows>
TG_INLINE_BODY void tile_gemm_body(T* c, int64_t ldc, const T* a, int64_t a_rs, int64_t a_ks, const T* b, int64_t ldb,
                                   int64_t rows, int64_t depth, int64_t width, T scale, bool accumulate) {
  constexpr int64_t L = Bytes / sizeof(T);
  for (int64_t i0 = 0; i0 < rows; i0 += Rows) {
    const int64_t block_rows = std::min<int64_t>(Rows, rows - i0);
    const T* ai0 = a + i0 * a_rs;
    int64_t row_off[Rows];
    for (int64_t i = 0; i < Rows; ++i) row_off[i] = std::min(i, block_rows - 1) * a_rs;
    T* ci = c + i0 * ldc;
    int64_t j = 0;
    for (; j + 2 * L <= width; j += 2 * L)
      register_block<T, Bytes, Rows, 2>(ci + j, ldc, ai0, row_off, a_ks, b + j, ldb, block_rows, depth, scale,
                                        accumulate);
    if (j + L <= width) {
      register_block<T, Bytes, Rows, 1>(ci + j, ldc, ai0, row_off, a_ks, b + j, ldb, block_rows, depth, scale,
                                        accumulate);
      j += L;
    }
    for (; j < width; ++j)
      for (int64_t i = 0; i < block_rows; ++i) {
        T sum = 0;
        for (int64_t k = 0; k < depth; ++k) sum += ai0[row_off[i] + k * a_ks] * b[k * ldb + j];
        ci[i * ldc + j] = accumulate ? ci[i * ldc + j] + sum * scale : sum * scale;
      }
  }
}

// Rows per register block: 8 x 2 vectors fill 16 of AVX-512's 32 registers, 4 x 2 half of
// AVX2's 16 (with the two b vectors and the broadcast beside them).
constexpr int kAvx512Rows = 8, kAvx2Rows = 4;

#if TG_HAS_AVX_PATHS
template <class T>
TG_AVX512 void tile_gemm_avx512(T* c, int64_t ldc, const T* a, int64_t a_rs, int64_t a_ks, const T* b, int64_t ldb,
                                int64_t rows, int64_t depth, int64_t width, T scale, bool accumulate) {
  tile_gemm_body<T, 64, kAvx512Rows>(c, ldc, a, a_rs, a_ks, b, ldb, rows, depth, width, scale, accumulate);
}
template <class T>
TG_AVX2_FMA void tile_gemm_avx2(T* c, int64_t ldc, const T* a, int64_t a_rs, int64_t a_ks, const T* b, int64_t ldb,
                                int64_t rows, int64_t depth, int64_t width, T scale, bool accumulate) {
  tile_gemm_body<T, 32, kAvx2Rows>(c, ldc, a, a_rs, a_ks, b, ldb, rows, depth, width, scale, accumulate);
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
void tile_gemm(T* c, int64_t ldc, const T* a, int64_t a_rs, int64_t a_ks, const T* b, int64_t ldb, int64_t rows,
               int64_t depth, int64_t width, T scale, bool accumulate) {
#if TG_HAS_AVX_PATHS
  if (tile_path() == TilePath::avx512)
    return tile_gemm_avx512(c, ldc, a, a_rs, a_ks, b, ldb, rows, depth, width, scale, accumulate);
  if (tile_path() == TilePath::avx2)
    return tile_gemm_avx2(c, ldc, a, a_rs, a_ks, b, ldb, rows, depth, width, scale, accumulate);
#endif
  tile_gemm_body<T, 32, kAvx2Rows>(c, ldc, a, a_rs, a_ks, b, ldb, rows, depth, width, scale, accumulate);
}

// The key tiles of one (S, width) matrix of rows (k or v of a head), transposed to (width,
// kBlockK) each, so that a tile is tile_gemm's b with unit stride along the keys. A tile is
// transposed at its first use and kept while its rows stay the same (the next query blocks of
// the head): O(S * width) scratch per thread.
template <class T>
class TransposedTiles {
 public:
  TransposedTiles(int64_t S, int64_t width)
      // new T[n], not make_unique_for_overwrite, which libc++ 14 (lab/) lacks: both leave it uninitialised
      : S_(S), width_(width), tiles_(new T[tiles(S) * width * kBlockK]),
        source_(tiles(S)) {}

  // The tile of keys j0.. of the matrix whose row 0 is at x, rows ld apart.
  const T* tile(const T* x, int64_t ld, int64_t j0) {
    const int64_t index = j0 / kBlockK, count = std::min(kBlockK, S_ - j0);
    T* bt = tiles_.get() + index * width_ * kBlockK;
    const T* first = x + j0 * ld;
    if (source_[index] != first) {
      transpose(bt, first, ld, count);
      source_[index] = first;
    }
    return bt;
  }

 private:
  static int64_t tiles(int64_t S) { return (S + kBlockK - 1) / kBlockK; }

  // bt[d*kBlockK + j] = x[j*ld + d] for j < count, d < width_ (= writes): for float, blocks of
  // 4 keys x 4 columns transposed in registers (four loads, eight shuffles, four stores).
  void transpose(T* bt, const T* x, int64_t ld, int64_t count) const {
    int64_t j = 0;
    if constexpr (std::is_same_v<T, float>) {
      typedef float V4 __attribute__((vector_size(16)));
      const int64_t width4 = width_ / 4 * 4;
      for (; j + 4 <= count; j += 4) {
        for (int64_t d = 0; d < width4; d += 4) {
          V4 r0, r1, r2, r3;  // keys j..j+3, columns d..d+3
          std::memcpy(&r0, x + j * ld + d, sizeof r0);
          std::memcpy(&r1, x + (j + 1) * ld + d, sizeof r1);
          std::memcpy(&r2, x + (j + 2) * ld + d, sizeof r2);
          std::memcpy(&r3, x + (j + 3) * ld + d, sizeof r3);
          const V4 t0 = __builtin_shufflevector(r0, r1, 0, 4, 1, 5), t1 = __builtin_shufflevector(r0, r1, 2, 6, 3, 7);
          const V4 t2 = __builtin_shufflevector(r2, r3, 0, 4, 1, 5), t3 = __builtin_shufflevector(r2, r3, 2, 6, 3, 7);
          const V4 columns[4] = {
              __builtin_shufflevector(t0, t2, 0, 1, 4, 5), __builtin_shufflevector(t0, t2, 2, 3, 6, 7),
              __builtin_shufflevector(t1, t3, 0, 1, 4, 5), __builtin_shufflevector(t1, t3, 2, 3, 6, 7)};
          for (int c = 0; c < 4; ++c) std::memcpy(bt + (d + c) * kBlockK + j, &columns[c], sizeof columns[c]);
        }
        for (int64_t d = width4; d < width_; ++d)
          for (int64_t k = j; k < j + 4; ++k) bt[d * kBlockK + k] = x[k * ld + d];
      }
    }
    for (; j < count; ++j)
      for (int64_t d = 0; d < width_; ++d) bt[d * kBlockK + j] = x[j * ld + d];
  }

  int64_t S_, width_;
  std::unique_ptr<T[]> tiles_;  // not zeroed: a tile is written before it is read
  std::vector<const T*> source_;  // the first row each tile was transposed from
};

}  // namespace tg::fused_attention_tiles
