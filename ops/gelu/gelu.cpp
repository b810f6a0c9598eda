#include "ops/gelu/gelu.h"

#include "core/factories.h"
#include "core/tape.h"
#include "ops/common/elementwise.h"

namespace tg {

Tensor gelu(const Tensor& x, GeluApprox approx) {
  check_cpu_only(x, "gelu", "x");
  Tensor out = unary_output(x, "gelu");
  gelu_forward_cpu(out, x, approx);
  if (Recorder rec("gelu", {x}, {out}); rec) {
    rec.save("x", x).attr("approx", approx == GeluApprox::tanh ? "tanh" : "none");
    rec.backward([approx](const BackwardContext& ctx) -> TensorList {
      Tensor dx = empty_like(ctx.grad());
      gelu_backward_cpu(dx, ctx.grad(), ctx.saved("x"), approx);
      return {dx};
    });
  }
  return out;
}

}  // namespace tg
