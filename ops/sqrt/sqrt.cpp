#include "ops/sqrt/sqrt.h"

#include "core/factories.h"
#include "core/tape.h"
#include "ops/common/elementwise.h"

namespace tg {

Tensor sqrt(const Tensor& x) {
  check_cpu_only(x, "sqrt", "x");
  Tensor out = unary_output(x, "sqrt");
  sqrt_forward_cpu(out, x);
  if (Recorder rec("sqrt", {x}, {out}); rec) {
    rec.save("out", out);
    rec.backward([](const BackwardContext& ctx) -> TensorList {
      Tensor dx = empty_like(ctx.grad());
      sqrt_backward_cpu(dx, ctx.grad(), ctx.saved("out"));
      return {dx};
    });
  }
  return out;
}

}  // namespace tg
