#include "ops/exp/exp.h"

#include "core/factories.h"
#include "core/tape.h"
#include "ops/common/elementwise.h"

namespace tg {

Tensor exp(const Tensor& x) {
  check_cpu_only(x, "exp", "x");
  Tensor out = unary_output(x, "exp");
  exp_forward_cpu(out, x);
  if (Recorder rec("exp", {x}, {out}); rec) {
    rec.save("out", out);
    rec.backward([](const BackwardContext& ctx) -> TensorList {
      Tensor dx = empty_like(ctx.grad());
      exp_backward_cpu(dx, ctx.grad(), ctx.saved("out"));
      return {dx};
    });
  }
  return out;
}

}  // namespace tg
