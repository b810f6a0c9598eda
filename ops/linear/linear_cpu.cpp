#include <omp.h>

#include <algorithm>

#include "core/dispatch.h"
#include "core/strided_loop.h"
#include "ops/linear/linear.h"

namespace tg {

void linear_bias_forward_cpu(const Tensor& out, const Tensor& bias, int64_t rows, int64_t n) {
  // out (rows, n) += bias (n), both contiguous
  dispatch_floating(out.dtype(), "linear", [&](auto zero) {
    using T = decltype(zero);
    T* y = out.data<T>();
    const T* b = bias.data<T>();
#pragma omp parallel for if (rows * n > kParallelGrain)
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t j = 0; j < n; ++j) y[r * n + j] += b[j];
  });
}

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
      std::fill(db + j0, db + j1, T(0));
      for (int64_t r = 0; r < rows; ++r)
        for (int64_t j = j0; j < j1; ++j) db[j] += g[r * n + j];
    }
  });
}

}  // namespace tg
