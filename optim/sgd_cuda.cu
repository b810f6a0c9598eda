// The GPU twin of sgd_cpu.cpp: one fused launch per parameter, one thread per element.
#include "core/cuda/cuda_check.h"
#include "core/cuda/strided_cuda.cuh"
#include "core/dispatch.h"
#include "optim/sgd.h"

namespace tg {

namespace {

// p -= lr * g (in place), buf = momentum buffer (= writes; null when momentum == 0).
template <class T>
__global__ void sgd_update_kernel(T* p, T* buf, const T* dp, T lr, T wd, T momentum, T keep, bool nesterov,
                                  bool first_step, int64_t n) {
  TG_GRID_STRIDE_LOOP(i, n) {
    T g = dp[i];
    if (wd != 0) g += wd * p[i];
    if (buf) {
      buf[i] = first_step ? g : momentum * buf[i] + keep * g;
      g = nesterov ? g + momentum * buf[i] : buf[i];
    }
    p[i] -= lr * g;
  }
}

}  // namespace

void sgd_update_cuda(const Tensor& param, const Tensor& momentum_buffer, const Tensor& grad,
                     const SGDOptions& options, double lr, double weight_decay, bool first_step) {
  const int64_t n = param.numel();
  if (n == 0) return;
  dispatch_floating(param.dtype(), "sgd", [&](auto zero) {
    using T = decltype(zero);
    T* buf = momentum_buffer.defined() ? momentum_buffer.data<T>() : nullptr;
    sgd_update_kernel<<<blocks_for(n), kThreads>>>(param.data<T>(), buf, grad.data<T>(), static_cast<T>(lr),
                                                   static_cast<T>(weight_decay), static_cast<T>(options.momentum),
                                                   static_cast<T>(1 - options.dampening), options.nesterov,
                                                   first_step, n);
  });
  TG_CUDA_CHECK_LAUNCH("sgd");
}

}  // namespace tg
