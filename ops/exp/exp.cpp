#include "ops/exp/exp.h"

#include "core/cuda/cuda_only.h"
#include "core/tape.h"
#include "ops/common/elementwise.h"

namespace tg {

Tensor exp(const Tensor& x) {
  Tensor out = unary_forward(x, "exp", exp_forward_cpu, TG_CUDA_KERNEL(exp_forward_cuda));
  if (Recorder rec("exp", {x}, {out}); rec) {
    rec.save("out", out);
    rec.backward([](const BackwardContext& ctx) -> TensorList {
      return {unary_backward(ctx.grad(), ctx.saved("out"), exp_backward_cpu, TG_CUDA_KERNEL(exp_backward_cuda))};
    });
  }
  return out;
}

}  // namespace tg
