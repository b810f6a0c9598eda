#include "ops/exp/exp.h"

#include "core/cuda/cuda_only.h"
#include "core/factories.h"
#include "core/tape.h"
#include "ops/common/elementwise.h"

namespace tg {

Tensor exp(const Tensor& x) {
  Tensor out = unary_output(x, "exp");
  if (out.is_cuda())
    TG_CUDA_ONLY(exp_forward_cuda(out, x));
  else
    exp_forward_cpu(out, x);
  if (Recorder rec("exp", {x}, {out}); rec) {
    rec.save("out", out);
    rec.backward([](const BackwardContext& ctx) -> TensorList {
      Tensor dx = empty_like(ctx.grad());
      if (dx.is_cuda())
        TG_CUDA_ONLY(exp_backward_cuda(dx, ctx.grad(), ctx.saved("out")));
      else
        exp_backward_cpu(dx, ctx.grad(), ctx.saved("out"));
      return {dx};
    });
  }
  return out;
}

}  // namespace tg
