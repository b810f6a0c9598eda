#include "ops/tanh/tanh.h"

#include "core/factories.h"
#include "core/tape.h"
#include "ops/common/elementwise.h"

namespace tg {

Tensor tanh(const Tensor& x) {
  check_cpu_only(x, "tanh", "x");
  Tensor out = unary_output(x, "tanh");
  tanh_forward_cpu(out, x);
  if (Recorder rec("tanh", {x}, {out}); rec) {
    rec.save("out", out);
    rec.backward([](const BackwardContext& ctx) -> TensorList {
      Tensor dx = empty_like(ctx.grad());
      tanh_backward_cpu(dx, ctx.grad(), ctx.saved("out"));
      return {dx};
    });
  }
  return out;
}

}  // namespace tg
