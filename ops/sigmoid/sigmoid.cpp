#include "ops/sigmoid/sigmoid.h"

#include "core/cuda/cuda_only.h"
#include "core/tape.h"
#include "ops/common/elementwise.h"

namespace tg {

Tensor sigmoid(const Tensor& x) {
  Tensor out = unary_forward(x, "sigmoid", sigmoid_forward_cpu, TG_CUDA_KERNEL(sigmoid_forward_cuda));
  if (Recorder rec("sigmoid", {x}, {out}); rec) {
    rec.save("out", out);
    rec.backward([](const BackwardContext& ctx) -> TensorList {
      return {unary_backward(ctx.grad(), ctx.saved("out"), sigmoid_backward_cpu,
                             TG_CUDA_KERNEL(sigmoid_backward_cuda))};
    });
  }
  return out;
}

}  // namespace tg
