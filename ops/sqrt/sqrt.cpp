#include "ops/sqrt/sqrt.h"

#include "core/cuda/cuda_only.h"
#include "core/tape.h"
#include "ops/common/elementwise.h"

namespace tg {

Tensor sqrt(const Tensor& x) {
  Tensor out = unary_forward(x, "sqrt", sqrt_forward_cpu, TG_CUDA_KERNEL(sqrt_forward_cuda));
  if (Recorder rec("sqrt", {x}, {out}); rec) {
    rec.save("out", out);
    rec.backward([](const BackwardContext& ctx) -> TensorList {
      return {unary_backward(ctx.grad(), ctx.saved("out"), sqrt_backward_cpu, TG_CUDA_KERNEL(sqrt_backward_cuda))};
    });
  }
  return out;
}

}  // namespace tg
