#include "ops/relu/relu.h"

#include "core/cuda/cuda_only.h"
#include "core/factories.h"
#include "core/tape.h"
#include "ops/common/elementwise.h"

namespace tg {

Tensor relu(const Tensor& x) {
  Tensor out = unary_output(x, "relu");
  if (out.is_cuda())
    TG_CUDA_ONLY(relu_forward_cuda(out, x));
  else
    relu_forward_cpu(out, x);
  if (Recorder rec("relu", {x}, {out}); rec) {
    rec.save("x", x);
    rec.backward([](const BackwardContext& ctx) -> TensorList {
      Tensor dx = empty_like(ctx.grad());
      if (dx.is_cuda())
        TG_CUDA_ONLY(relu_backward_cuda(dx, ctx.grad(), ctx.saved("x")));
      else
        relu_backward_cpu(dx, ctx.grad(), ctx.saved("x"));
      return {dx};
    });
  }
  return out;
}

}  // namespace tg
