// The GPU twin of adam_cpu.cpp: one fused launch per parameter, one thread per element; the
// per-step scalars are computed on the host in double, as on the CPU.
#include <cmath>

#include "core/cuda/cuda_check.h"
#include "core/cuda/strided_cuda.cuh"
#include "core/dispatch.h"
#include "optim/adam.h"

namespace tg {

namespace {

// p, m, v updated in place (formula in adam.h); l2 = Adam's weight decay (0 for AdamW),
// shrink = AdamW's 1 - lr * weight_decay (1 for Adam).
template <class T>
__global__ void adam_update_kernel(T* p, T* m, T* v, const T* dp, T beta1, T beta2, T eps, T l2, T shrink,
                                   T step_size, T bias_correction2_sqrt, int64_t n) {
  TG_GRID_STRIDE_LOOP(i, n) {
    T g = dp[i];
    if (l2 != 0) g += l2 * p[i];
    if (shrink != 1) p[i] *= shrink;
    m[i] = beta1 * m[i] + (1 - beta1) * g;
    v[i] = beta2 * v[i] + (1 - beta2) * g * g;
    const T denom = sqrt(v[i]) / bias_correction2_sqrt + eps;
    p[i] -= step_size * (m[i] / denom);
  }
}

}  // namespace

void adam_update_cuda(const Tensor& param, const Tensor& exp_avg, const Tensor& exp_avg_sq, const Tensor& grad,
                      const AdamOptions& options, double lr, double weight_decay, bool decoupled, int64_t step) {
  const int64_t n = param.numel();
  if (n == 0) return;
  const double bias_correction1 = 1 - std::pow(options.beta1, static_cast<double>(step));
  const double bias_correction2 = 1 - std::pow(options.beta2, static_cast<double>(step));
  const char* op = decoupled ? "adamw" : "adam";
  dispatch_floating(param.dtype(), op, [&](auto zero) {
    using T = decltype(zero);
    adam_update_kernel<<<blocks_for(n), kThreads>>>(
        param.data<T>(), exp_avg.data<T>(), exp_avg_sq.data<T>(), grad.data<T>(), static_cast<T>(options.beta1),
        static_cast<T>(options.beta2), static_cast<T>(options.eps), static_cast<T>(decoupled ? 0 : weight_decay),
        static_cast<T>(decoupled ? 1 - lr * weight_decay : 1), static_cast<T>(lr / bias_correction1),
        static_cast<T>(std::sqrt(bias_correction2)), n);
  });
  TG_CUDA_CHECK_LAUNCH(op);
}

}  // namespace tg
