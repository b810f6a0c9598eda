#include "ops/relu/relu.h"

#include "core/factories.h"
#include "core/tape.h"
#include "ops/common/elementwise.h"

namespace tg {

Tensor relu(const Tensor& x) {
  check_cpu_only(x, "relu", "x");
  Tensor out = unary_output(x, "relu");
  relu_forward_cpu(out, x);
  if (Recorder rec("relu", {x}, {out}); rec) {
    rec.save("x", x);
    rec.backward([](const BackwardContext& ctx) -> TensorList {
      Tensor dx = empty_like(ctx.grad());
      relu_backward_cpu(dx, ctx.grad(), ctx.saved("x"));
      return {dx};
    });
  }
  return out;
}

}  // namespace tg
