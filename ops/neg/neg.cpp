#include "ops/neg/neg.h"

#include "core/tape.h"
#include "ops/common/elementwise.h"

namespace tg {

Tensor neg(const Tensor& x) {
  check_cpu_only(x, "neg", "x");
  Tensor out = unary_output(x, "neg");
  neg_forward_cpu(out, x);
  if (Recorder rec("neg", {x}, {out}); rec)
    rec.backward([](const BackwardContext& ctx) -> TensorList { return {neg(ctx.grad())}; });
  return out;
}

}  // namespace tg
