#include <cmath>

#include "core/dispatch.h"
#include "core/strided_loop.h"
#include "ops/common/rows.h"
#include "ops/softmax/softmax.h"

namespace tg {

void softmax_forward_cpu(const Tensor& out, const Tensor& inp, int64_t outer, int64_t dim_size, int64_t inner) {
  // inp, out (outer, dim_size, inner) contiguous
  dispatch_floating(inp.dtype(), "softmax", [&](auto zero) {
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
      if (maxval == -INFINITY) {  // fully masked row: zeros instead of 0/0
        for (int64_t j = 0; j < dim_size; ++j) yr[j * inner] = 0;
        continue;
      }
      double sum = 0;
      for (int64_t j = 0; j < dim_size; ++j) {
        const double e = std::exp(xr[j * inner] - maxval);  // in (0, 1]: never overflows
        yr[j * inner] = static_cast<T>(e);
        sum += e;
      }
      const double scale = 1 / sum;  // sum >= 1: the max element contributes exp(0)
      for (int64_t j = 0; j < dim_size; ++j) yr[j * inner] = static_cast<T>(yr[j * inner] * scale);
    }
  });
}

void softmax_backward_cpu(const Tensor& dinp, const Tensor& out, const Tensor& dout, int64_t outer,
                          int64_t dim_size, int64_t inner) {
  // dinp, out, dout (outer, dim_size, inner) contiguous
  dispatch_floating(out.dtype(), "softmax", [&](auto zero) {
    using T = decltype(zero);
    const T* y = out.data<T>();
    const T* g = dout.data<T>();
    T* dx = dinp.data<T>();
    const int64_t rows = outer * inner;
#pragma omp parallel for if (rows * dim_size > kParallelGrain)
    for (int64_t r = 0; r < rows; ++r) {
      const int64_t start = row_start(r, dim_size, inner);
      double dot = 0;  // sum_k g_k y_k
      for (int64_t j = 0; j < dim_size; ++j) dot += static_cast<double>(g[start + j * inner]) * y[start + j * inner];
      for (int64_t j = 0; j < dim_size; ++j) {
        const int64_t k = start + j * inner;
        dx[k] = static_cast<T>(y[k] * (g[k] - dot));  // a fully masked row has y = 0: dx = 0
      }
    }
  });
}

}  // namespace tg
