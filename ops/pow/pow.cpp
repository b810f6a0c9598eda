#include "ops/pow/pow.h"

#include "core/factories.h"
#include "core/tape.h"
#include "ops/common/elementwise.h"

namespace tg {

Tensor pow(const Tensor& x, double p) {
  check_cpu_only(x, "pow", "x");
  Tensor out = unary_output(x, "pow");
  pow_forward_cpu(out, x, p);
  if (Recorder rec("pow", {x}, {out}); rec) {
    rec.save("x", x).attr("p", p);
    rec.backward([p](const BackwardContext& ctx) -> TensorList {
      Tensor dx = empty_like(ctx.grad());
      pow_backward_cpu(dx, ctx.grad(), ctx.saved("x"), p);
      return {dx};
    });
  }
  return out;
}

}  // namespace tg
