#include "ops/log/log.h"

#include "core/factories.h"
#include "core/tape.h"
#include "ops/common/elementwise.h"

namespace tg {

Tensor log(const Tensor& x) {
  check_cpu_only(x, "log", "x");
  Tensor out = unary_output(x, "log");
  log_forward_cpu(out, x);
  if (Recorder rec("log", {x}, {out}); rec) {
    rec.save("x", x);
    rec.backward([](const BackwardContext& ctx) -> TensorList {
      Tensor dx = empty_like(ctx.grad());
      log_backward_cpu(dx, ctx.grad(), ctx.saved("x"));
      return {dx};
    });
  }
  return out;
}

}  // namespace tg
