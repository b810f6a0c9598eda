#include "ops/gelu/gelu.h"

#include "core/cuda/cuda_only.h"
#include "core/factories.h"
#include "core/tape.h"
#include "ops/common/elementwise.h"

namespace tg {

Tensor gelu(const Tensor& x, GeluApprox approx) {
  Tensor out = unary_output(x, "gelu");
  if (out.is_cuda())
    TG_CUDA_ONLY(gelu_forward_cuda(out, x, approx));
  else
    gelu_forward_cpu(out, x, approx);
  if (Recorder rec("gelu", {x}, {out}); rec) {
    rec.save("x", x).attr("approx", approx == GeluApprox::tanh ? "tanh" : "none");
    rec.backward([approx](const BackwardContext& ctx) -> TensorList {
      Tensor dx = empty_like(ctx.grad());
      if (dx.is_cuda())
        TG_CUDA_ONLY(gelu_backward_cuda(dx, ctx.grad(), ctx.saved("x"), approx));
      else
        gelu_backward_cpu(dx, ctx.grad(), ctx.saved("x"), approx);
      return {dx};
    });
  }
  return out;
}

}  // namespace tg
