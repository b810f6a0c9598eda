#include "ops/matmul/gemm_cpu.h"

#include <algorithm>
#include <vector>

#include "core/strided_loop.h"

namespace tg {

namespace {

// Block sizes: a tile of kRows rows of c is computed against a (kDepth, kCols) block of
// op(b), which stays in L2 cache while every row of the tile reads it.
constexpr int64_t kRows = 8, kDepth = 128, kCols = 256;

}  // namespace

template <class T>
void gemm_cpu(T* c, const GemmMatrix<T>& a, const GemmMatrix<T>& b, int64_t batch, int64_t M, int64_t N,
              int64_t K) {
  // c (batch,M,N) = op(a) (batch,M,K) @ op(b) (batch,K,N). Each task is one tile of rows of
  // one batch element. The innermost loop always has unit stride:
  //   b row-major:    i-k-j,  c[i, j:] += op(a)[i,k] * b[k, j:]        (axpy over a row of b)
  //   b column-major: i-j-k,  c[i,j]   += op(a)[i, k:] . b^T[j, k:]     (dot of two rows)
  // and in the second form the tile's rows of op(a) are packed first when a is column-major.
  const int64_t row_tiles = (M + kRows - 1) / kRows;
  const int64_t tasks = batch * row_tiles;
#pragma omp parallel if (batch * M * N * K > kParallelGrain)
  {
    std::vector<T> a_rows;  // rows i0..i1 of op(a), row-major, for a and b both transposed
    if (a.trans && b.trans) a_rows.resize(kRows * K);
#pragma omp for schedule(static)
    for (int64_t task = 0; task < tasks; ++task) {
      const int64_t p = task / row_tiles, i0 = (task % row_tiles) * kRows, i1 = std::min(M, i0 + kRows);
      const T* ap = a.data + a.offsets[p];
      const T* bp = b.data + b.offsets[p];
      T* cp = c + p * M * N;
      std::fill(cp + i0 * N, cp + i1 * N, T(0));
      // Row i of op(a) with unit stride (dot form only): at a_row + i * a_row_ld.
      const T* a_row = ap;
      int64_t a_row_ld = a.ld;
      if (a.trans && b.trans) {
        for (int64_t i = i0; i < i1; ++i)
          for (int64_t k = 0; k < K; ++k) a_rows[(i - i0) * K + k] = ap[k * a.ld + i];
        a_row = a_rows.data() - i0 * K;
        a_row_ld = K;
      }
      for (int64_t k0 = 0; k0 < K; k0 += kDepth) {
        const int64_t kn = std::min(kDepth, K - k0);
        for (int64_t j0 = 0; j0 < N; j0 += kCols) {
          const int64_t jn = std::min(kCols, N - j0);
          for (int64_t i = i0; i < i1; ++i) {
            T* crow = cp + i * N + j0;
            if (!b.trans) {
              for (int64_t k = k0; k < k0 + kn; ++k) {
                const T aik = a.trans ? ap[k * a.ld + i] : ap[i * a.ld + k];
                const T* brow = bp + k * b.ld + j0;
#pragma omp simd
                for (int64_t j = 0; j < jn; ++j) crow[j] += aik * brow[j];
              }
            } else {
              const T* arow = a_row + i * a_row_ld + k0;
              for (int64_t j = 0; j < jn; ++j) {
                const T* bcol = bp + (j0 + j) * b.ld + k0;  // column j0+j of op(b)
                T acc = 0;
#pragma omp simd reduction(+ : acc)
                for (int64_t k = 0; k < kn; ++k) acc += arow[k] * bcol[k];
                crow[j] += acc;
              }
            }
          }
        }
      }
    }
  }
}

template void gemm_cpu<float>(float*, const GemmMatrix<float>&, const GemmMatrix<float>&, int64_t, int64_t,
                              int64_t, int64_t);
template void gemm_cpu<double>(double*, const GemmMatrix<double>&, const GemmMatrix<double>&, int64_t, int64_t,
                               int64_t, int64_t);

}  // namespace tg
