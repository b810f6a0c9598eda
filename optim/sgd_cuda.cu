// The GPU twin of sgd_cpu.cpp: one fused launch for all of a group's parameters (per device
// and dtype, optim/multi_tensor_cuda.cuh), one thread per element.
#include "core/dispatch.h"
#include "optim/multi_tensor_cuda.cuh"
#include "optim/sgd.h"

namespace tg {

namespace {

// One parameter: p updated in place, buf its momentum buffer (null when momentum == 0), dp read.
template <class T>
struct SgdTensor {
  T *p, *buf;
  const T* dp;
  int64_t n;
  bool first_step;  // buf = g, without dampening
};

// The formula in sgd.h; keep = 1 - dampening.
template <class T>
__global__ void sgd_update_kernel(const SgdTensor<T>* tensors, const TensorChunk* chunks, int64_t n_chunks, T lr,
                                  T wd, T momentum, T keep, bool nesterov) {
  for_each_chunk_element(tensors, chunks, n_chunks, [=](const SgdTensor<T>& t, int64_t i) {
    T g = t.dp[i];
    if (wd != 0) g += wd * t.p[i];
    if (t.buf) {
      t.buf[i] = t.first_step ? g : momentum * t.buf[i] + keep * g;
      g = nesterov ? g + momentum * t.buf[i] : t.buf[i];
    }
    t.p[i] -= lr * g;
  });
}

}  // namespace

void sgd_update_cuda(const std::vector<ParamUpdate>& updates, const SGDOptions& options, double lr,
                     double weight_decay) {
  for (const std::vector<const ParamUpdate*>& part : launch_parts(updates)) {
    const Tensor& first = part[0]->param.tensor;
    dispatch_floating(first.dtype(), "sgd", [&](auto zero) {
      using T = decltype(zero);
      std::vector<SgdTensor<T>> tensors;
      for (const ParamUpdate* u : part)
        tensors.push_back({u->param.tensor.data<T>(), u->state.buffers.empty() ? nullptr : u->state.buffers[0].data<T>(),
                           u->grad.data<T>(), u->param.tensor.numel(), u->state.step == 1});
      const ChunkList<SgdTensor<T>> list(tensors, first.device().index, "sgd");
      if (list.count() == 0) return;
      sgd_update_kernel<<<list.blocks(), kThreads>>>(list.tensors(), list.chunks(), list.count(), static_cast<T>(lr),
                                                     static_cast<T>(weight_decay), static_cast<T>(options.momentum),
                                                     static_cast<T>(1 - options.dampening), options.nesterov);
      TG_CUDA_CHECK_LAUNCH("sgd");
    });
  }
}

}  // namespace tg
