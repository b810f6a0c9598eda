#include "ops/tanh/tanh.h"

#include "core/cuda/cuda_only.h"
#include "core/tape.h"
#include "ops/common/elementwise.h"

namespace tg {

Tensor tanh(const Tensor& x) {
  Tensor out = unary_forward(x, "tanh", tanh_forward_cpu, TG_CUDA_KERNEL(tanh_forward_cuda));
  if (Recorder rec("tanh", {x}, {out}); rec) {
    rec.save("out", out);
    rec.backward([](const BackwardContext& ctx) -> TensorList {
      return {unary_backward(ctx.grad(), ctx.saved("out"), tanh_backward_cpu, TG_CUDA_KERNEL(tanh_backward_cuda))};
    });
  }
  return out;
}

}  // namespace tg
