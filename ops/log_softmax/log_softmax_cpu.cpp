#include <cmath>

#include "core/dispatch.h"
#include "core/strided_loop.h"
#include "ops/common/dim_rows.h"
#include "ops/log_softmax/log_softmax.h"

namespace tg {

void log_softmax_forward_cpu(const Tensor& out, const Tensor& inp, int64_t outer, int64_t dim_size,
                             int64_t inner) {
  // inp, out (outer, dim_size, inner) contiguous
  dispatch_floating(inp.dtype(), "log_softmax", [&](auto zero) {
    using T = decltype(zero);
    const T* x = inp.data<T>();
    T* y = out.data<T>();
    const int64_t rows = outer * inner;
#pragma omp parallel for if (rows * dim_size > kParallelGrain)
    for (int64_t r = 0; r < rows; ++r) {
      const int64_t start = row_start(r, dim_size, inner);
      const T* xr = x + start;
      T* yr = y + start;
      const double maxval = row_max(xr, dim_size, inner);
      if (maxval == -INFINITY) {  // fully masked row: -inf, not -inf - (-inf) = NaN
        for (int64_t j = 0; j < dim_size; ++j) yr[j * inner] = -INFINITY;
        continue;
      }
      double sum = 0;
      for (int64_t j = 0; j < dim_size; ++j) sum += std::exp(xr[j * inner] - maxval);
      const double log_sum = std::log(sum);  // sum >= 1: the max element contributes exp(0)
      for (int64_t j = 0; j < dim_size; ++j) yr[j * inner] = static_cast<T>((xr[j * inner] - maxval) - log_sum);
    }
  });
}

void log_softmax_backward_cpu(const Tensor& dinp, const Tensor& out, const Tensor& dout, int64_t outer,
                              int64_t dim_size, int64_t inner) {
  // dinp, out, dout (outer, dim_size, inner) contiguous
  dispatch_floating(out.dtype(), "log_softmax", [&](auto zero) {
    using T = decltype(zero);
    const T* y = out.data<T>();
    const T* g = dout.data<T>();
    T* dx = dinp.data<T>();
    const int64_t rows = outer * inner;
#pragma omp parallel for if (rows * dim_size > kParallelGrain)
    for (int64_t r = 0; r < rows; ++r) {
      const int64_t start = row_start(r, dim_size, inner);
      double gsum = 0;
      bool masked = true;  // every y is -inf: the row was fully masked
      for (int64_t j = 0; j < dim_size; ++j) {
        gsum += g[start + j * inner];
        masked = masked && y[start + j * inner] == -INFINITY;
      }
      for (int64_t j = 0; j < dim_size; ++j) {
        const int64_t k = start + j * inner;
        dx[k] = masked ? T(0) : static_cast<T>(g[k] - std::exp(static_cast<double>(y[k])) * gsum);
      }
    }
  });
}

}  // namespace tg
