#include <algorithm>
#include <cmath>

#include "core/dispatch.h"
#include "core/strided_loop.h"
#include "optim/clip_grad.h"

namespace tg {

double grad_norm_part_cpu(const Tensor& grad, double norm_type) {
  return dispatch_floating(grad.dtype(), "clip_grad_norm", [&](auto zero) {
    using T = decltype(zero);
    const T* g = grad.data<T>();
    const int64_t n = grad.numel();
    double acc = 0;
    if (norm_type == kInfNorm) {
      bool nan = false;  // max() would drop a NaN; it must be reported
#pragma omp parallel for reduction(max : acc) reduction(|| : nan) if (n > kParallelGrain)
      for (int64_t i = 0; i < n; ++i) {
        const double a = std::abs(static_cast<double>(g[i]));
        nan = nan || std::isnan(a);
        acc = std::max(acc, a);
      }
      if (nan) acc = std::nan("");
    } else {
#pragma omp parallel for reduction(+ : acc) if (n > kParallelGrain)
      for (int64_t i = 0; i < n; ++i) acc += std::pow(std::abs(static_cast<double>(g[i])), norm_type);
    }
    return acc;
  });
}

void grad_scale_cpu(const Tensor& grad, double scale) {
  dispatch_floating(grad.dtype(), "clip_grad_norm", [&](auto zero) {
    using T = decltype(zero);
    T* g = grad.data<T>();
    const T s = static_cast<T>(scale);
    const int64_t n = grad.numel();
#pragma omp parallel for if (n > kParallelGrain)
    for (int64_t i = 0; i < n; ++i) g[i] *= s;
  });
}

void grad_clamp_cpu(const Tensor& grad, double clip) {
  dispatch_floating(grad.dtype(), "clip_grad_value", [&](auto zero) {
    using T = decltype(zero);
    T* g = grad.data<T>();
    const T hi = static_cast<T>(clip);
    const int64_t n = grad.numel();
#pragma omp parallel for if (n > kParallelGrain)
    for (int64_t i = 0; i < n; ++i) g[i] = g[i] > hi ? hi : (g[i] < -hi ? -hi : g[i]);  // NaN kept
  });
}

}  // namespace tg
