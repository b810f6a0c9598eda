#include "core/dispatch.h"
#include "core/strided_loop.h"
#include "optim/sgd.h"

namespace tg {

void sgd_update_cpu(const Tensor& param, const Tensor& momentum_buffer, const Tensor& grad,
                    const SGDOptions& options, double lr, double weight_decay, bool first_step) {
  dispatch_floating(param.dtype(), "sgd", [&](auto zero) {
    using T = decltype(zero);
    T* p = param.data<T>();
    T* buf = momentum_buffer.defined() ? momentum_buffer.data<T>() : nullptr;
    const T* dp = grad.data<T>();
    const T lr_ = static_cast<T>(lr), wd = static_cast<T>(weight_decay);
    const T momentum = static_cast<T>(options.momentum), keep = static_cast<T>(1 - options.dampening);
    const bool nesterov = options.nesterov;
    const int64_t n = param.numel();
#pragma omp parallel for if (n > kParallelGrain)
    for (int64_t i = 0; i < n; ++i) {
      T g = dp[i];
      if (wd != 0) g += wd * p[i];
      if (buf) {
        buf[i] = first_step ? g : momentum * buf[i] + keep * g;
        g = nesterov ? g + momentum * buf[i] : buf[i];
      }
      p[i] -= lr_ * g;
    }
  });
}

}  // namespace tg
