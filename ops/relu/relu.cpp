#include "ops/relu/relu.h"

#include "core/cuda/cuda_only.h"
#include "core/tape.h"
#include "ops/common/elementwise.h"

namespace tg {

Tensor relu(const Tensor& x) {
  Tensor out = unary_forward(x, "relu", relu_forward_cpu, TG_CUDA_KERNEL(relu_forward_cuda));
  if (Recorder rec("relu", {x}, {out}); rec) {
    rec.save("x", x);
    rec.backward([](const BackwardContext& ctx) -> TensorList {
      return {unary_backward(ctx.grad(), ctx.saved("x"), relu_backward_cpu, TG_CUDA_KERNEL(relu_backward_cuda))};
    });
  }
  return out;
}

}  // namespace tg
