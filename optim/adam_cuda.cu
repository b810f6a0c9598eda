// The GPU twin of adam_cpu.cpp: one fused launch for all of a group's parameters (per device
// and dtype, optim/multi_tensor_cuda.cuh), one thread per element; the per-parameter scalars
// are computed on the host in double, as on the CPU.
#include <cmath>

#include "core/dispatch.h"
#include "optim/adam.h"
#include "optim/multi_tensor_cuda.cuh"

namespace tg {

namespace {

// One parameter: p, m, v updated in place, dp read; its step's scalars.
template <class T>
struct AdamTensor {
  T *p, *m, *v;
  const T* dp;
  int64_t n;
  T step_size;               // lr / (1 - beta1^t)
  T bias_correction2_sqrt;   // sqrt(1 - beta2^t)
};

// The formula in adam.h; l2 = Adam's weight decay (0 for AdamW), shrink = AdamW's
// 1 - lr * weight_decay (1 for Adam).
template <class T>
__global__ void adam_update_kernel(const AdamTensor<T>* tensors, const TensorChunk* chunks, int64_t n_chunks, T beta1,
                                   T beta2, T eps, T l2, T shrink) {
  for_each_chunk_element(tensors, chunks, n_chunks, [=](const AdamTensor<T>& t, int64_t i) {
    T g = t.dp[i];
    if (l2 != 0) g += l2 * t.p[i];
    if (shrink != 1) t.p[i] *= shrink;
    t.m[i] = beta1 * t.m[i] + (1 - beta1) * g;
    t.v[i] = beta2 * t.v[i] + (1 - beta2) * g * g;
    const T denom = sqrt(t.v[i]) / t.bias_correction2_sqrt + eps;
    t.p[i] -= t.step_size * (t.m[i] / denom);
  });
}

}  // namespace

void adam_update_cuda(const std::vector<ParamUpdate>& updates, const AdamOptions& options, double lr,
                      double weight_decay, bool decoupled) {
  const char* op = decoupled ? "adamw" : "adam";
  for (const std::vector<const ParamUpdate*>& part : launch_parts(updates)) {
    const Tensor& first = part[0]->param.tensor;
    dispatch_floating(first.dtype(), op, [&](auto zero) {
      using T = decltype(zero);
      std::vector<AdamTensor<T>> tensors;
      for (const ParamUpdate* u : part) {
        const double t = static_cast<double>(u->state.step);
        tensors.push_back({u->param.tensor.data<T>(), u->state.buffers[0].data<T>(), u->state.buffers[1].data<T>(),
                           u->grad.data<T>(), u->param.tensor.numel(),
                           static_cast<T>(lr / (1 - std::pow(options.beta1, t))),
                           static_cast<T>(std::sqrt(1 - std::pow(options.beta2, t)))});
      }
      const ChunkList<AdamTensor<T>> list(tensors, first.device().index, op);
      if (list.count() == 0) return;
      adam_update_kernel<<<list.blocks(), kThreads>>>(
          list.tensors(), list.chunks(), list.count(), static_cast<T>(options.beta1), static_cast<T>(options.beta2),
          static_cast<T>(options.eps), static_cast<T>(decoupled ? 0 : weight_decay),
          static_cast<T>(decoupled ? 1 - lr * weight_decay : 1));
      TG_CUDA_CHECK_LAUNCH(op);
    });
  }
}

}  // namespace tg
