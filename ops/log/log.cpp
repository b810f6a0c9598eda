#include "ops/log/log.h"

#include "core/cuda/cuda_only.h"
#include "core/tape.h"
#include "ops/common/elementwise.h"

namespace tg {

Tensor log(const Tensor& x) {
  Tensor out = unary_forward(x, "log", log_forward_cpu, TG_CUDA_KERNEL(log_forward_cuda));
  if (Recorder rec("log", {x}, {out}); rec) {
    rec.save("x", x);
    rec.backward([](const BackwardContext& ctx) -> TensorList {
      return {unary_backward(ctx.grad(), ctx.saved("x"), log_backward_cpu, TG_CUDA_KERNEL(log_backward_cuda))};
    });
  }
  return out;
}

}  // namespace tg
