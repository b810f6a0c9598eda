#include <cmath>

#include "core/dispatch.h"
#include "core/strided_loop.h"
#include "optim/adam.h"

namespace tg {

void adam_update_cpu(const Tensor& param, const Tensor& exp_avg, const Tensor& exp_avg_sq, const Tensor& grad,
                     const AdamOptions& options, double lr, double weight_decay, bool decoupled, int64_t step) {
  // Per-step scalars in double, as PyTorch computes them in Python floats.
  const double bias_correction1 = 1 - std::pow(options.beta1, static_cast<double>(step));
  const double bias_correction2 = 1 - std::pow(options.beta2, static_cast<double>(step));
  dispatch_floating(param.dtype(), decoupled ? "adamw" : "adam", [&](auto zero) {
    using T = decltype(zero);
    T* p = param.data<T>();
    T* m = exp_avg.data<T>();
    T* v = exp_avg_sq.data<T>();
    const T* dp = grad.data<T>();
    const T beta1 = static_cast<T>(options.beta1), beta2 = static_cast<T>(options.beta2);
    const T eps = static_cast<T>(options.eps);
    const T l2 = static_cast<T>(decoupled ? 0 : weight_decay);
    const T shrink = static_cast<T>(decoupled ? 1 - lr * weight_decay : 1);
    const T step_size = static_cast<T>(lr / bias_correction1);
    const T bias_correction2_sqrt = static_cast<T>(std::sqrt(bias_correction2));
    const int64_t n = param.numel();
    // a sqrt and a division per element: worth a second thread at an eighth of the usual grain
#pragma omp parallel for simd if (n > kParallelGrain / 8)
    for (int64_t i = 0; i < n; ++i) {
      T g = dp[i];
      if (l2 != 0) g += l2 * p[i];
      if (shrink != 1) p[i] *= shrink;
      m[i] = beta1 * m[i] + (1 - beta1) * g;
      v[i] = beta2 * v[i] + (1 - beta2) * g * g;
      const T denom = std::sqrt(v[i]) / bias_correction2_sqrt + eps;
      p[i] -= step_size * (m[i] / denom);
    }
  });
}

}  // namespace tg
