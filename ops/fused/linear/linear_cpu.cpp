#include <omp.h>

#include <algorithm>

#include "core/dispatch.h"
#include "core/strided_loop.h"
#include "ops/common/vec_math.h"
#include "ops/fused/linear/linear.h"

namespace tg {

namespace {

// sums[0..width) = the sums over rows of g[r*ld + 0..width), in row order (= writes). Blocks of
// kColumns columns keep their sums in registers while the rows stream past.
template <class T>
[[gnu::always_inline]] inline void column_sums_body(T* sums, const T* g, int64_t rows, int64_t ld, int64_t width) {
  constexpr int64_t kColumns = 64;
  int64_t j0 = 0;
  for (; j0 + kColumns <= width; j0 += kColumns) {
    T sum[kColumns] = {};
    for (int64_t r = 0; r < rows; ++r)
#pragma omp simd
      for (int64_t j = 0; j < kColumns; ++j) sum[j] += g[r * ld + j0 + j];
    std::copy(sum, sum + kColumns, sums + j0);
  }
  std::fill(sums + j0, sums + width, T(0));
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t j = j0; j < width; ++j) sums[j] += g[r * ld + j];
}

TG_VEC_CLONES void column_sums(float* sums, const float* g, int64_t rows, int64_t ld, int64_t width) {
  column_sums_body(sums, g, rows, ld, width);
}
void column_sums(double* sums, const double* g, int64_t rows, int64_t ld, int64_t width) {
  column_sums_body(sums, g, rows, ld, width);
}

}  // namespace

void linear_bias_backward_cpu(const Tensor& dbias, const Tensor& grad, int64_t rows, int64_t n) {
  // dbias (n) = sum_r grad (rows, n)[r, :], both contiguous. Each thread sums its own columns
  // over all rows, in row order: the result does not depend on the thread count.
  dispatch_floating(dbias.dtype(), "linear", [&](auto zero) {
    using T = decltype(zero);
    T* db = dbias.data<T>();
    const T* g = grad.data<T>();
    const int threads = rows * n > kParallelGrain ? std::min<int>(omp_get_max_threads(), int(n / 16) + 1) : 1;
#pragma omp parallel num_threads(threads)
    {
      const int t = omp_get_thread_num(), nt = omp_get_num_threads();
      const int64_t j0 = n * t / nt, j1 = n * (t + 1) / nt;
      column_sums(db + j0, g + j0, rows, n, j1 - j0);
    }
  });
}

}  // namespace tg
