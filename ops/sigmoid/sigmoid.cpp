#include "ops/sigmoid/sigmoid.h"

#include "core/factories.h"
#include "core/tape.h"
#include "ops/common/elementwise.h"

namespace tg {

Tensor sigmoid(const Tensor& x) {
  check_cpu_only(x, "sigmoid", "x");
  Tensor out = unary_output(x, "sigmoid");
  sigmoid_forward_cpu(out, x);
  if (Recorder rec("sigmoid", {x}, {out}); rec) {
    rec.save("out", out);
    rec.backward([](const BackwardContext& ctx) -> TensorList {
      Tensor dx = empty_like(ctx.grad());
      sigmoid_backward_cpu(dx, ctx.grad(), ctx.saved("out"));
      return {dx};
    });
  }
  return out;
}

}  // namespace tg
