#include <cmath>

#include "core/dispatch.h"
#include "core/strided_loop.h"
#include "optim/adam.h"

namespace tg {

namespace {

// What one Adam(W) step multiplies and adds, in T.
template <class T>
struct AdamScalars {
  T beta1, beta2, eps, l2, shrink, step_size, bias_correction2_sqrt;
};

// The update of p, m, v (n) from g (n), in place. A function of plain pointers with no branch
// per element, so that the loop vectorises: p * 1 is p for every p (Adam), and the L2 term is a
// compile-time choice (g + 0 * p would turn an infinite p into NaN).
template <bool kL2, class T>
void adam_loop(T* p, T* m, T* v, const T* grad, int64_t n, const AdamScalars<T> s) {
  // a sqrt and a division per element: worth a second thread at an eighth of the usual grain
#pragma omp parallel for simd if (n > kParallelGrain / 8)
  for (int64_t i = 0; i < n; ++i) {
    T g = grad[i];
    if constexpr (kL2) g += s.l2 * p[i];
    const T mi = s.beta1 * m[i] + (1 - s.beta1) * g, vi = s.beta2 * v[i] + (1 - s.beta2) * g * g;
    m[i] = mi;
    v[i] = vi;
    p[i] = p[i] * s.shrink - s.step_size * (mi / (std::sqrt(vi) / s.bias_correction2_sqrt + s.eps));
  }
}

}  // namespace

void adam_update_cpu(const Tensor& param, const Tensor& exp_avg, const Tensor& exp_avg_sq, const Tensor& grad,
                     const AdamOptions& options, double lr, double weight_decay, bool decoupled, int64_t step) {
  // Per-step scalars in double, as PyTorch computes them in Python floats.
  const double bias_correction1 = 1 - std::pow(options.beta1, static_cast<double>(step));
  const double bias_correction2 = 1 - std::pow(options.beta2, static_cast<double>(step));
  dispatch_floating(param.dtype(), decoupled ? "adamw" : "adam", [&](auto zero) {
    using T = decltype(zero);
    const AdamScalars<T> s{static_cast<T>(options.beta1),
                           static_cast<T>(options.beta2),
                           static_cast<T>(options.eps),
                           static_cast<T>(decoupled ? 0 : weight_decay),
                           static_cast<T>(decoupled ? 1 - lr * weight_decay : 1),
                           static_cast<T>(lr / bias_correction1),
                           static_cast<T>(std::sqrt(bias_correction2))};
    const auto run = s.l2 != 0 ? adam_loop<true, T> : adam_loop<false, T>;
    run(param.data<T>(), exp_avg.data<T>(), exp_avg_sq.data<T>(), grad.data<T>(), param.numel(), s);
  });
}

}  // namespace tg
