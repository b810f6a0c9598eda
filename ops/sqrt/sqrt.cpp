#include "ops/sqrt/sqrt.h"

#include "core/cuda/cuda_only.h"
#include "core/factories.h"
#include "core/tape.h"
#include "ops/common/elementwise.h"

namespace tg {

Tensor sqrt(const Tensor& x) {
  Tensor out = unary_output(x, "sqrt");
  if (out.is_cuda())
    TG_CUDA_ONLY(sqrt_forward_cuda(out, x));
  else
    sqrt_forward_cpu(out, x);
  if (Recorder rec("sqrt", {x}, {out}); rec) {
    rec.save("out", out);
    rec.backward([](const BackwardContext& ctx) -> TensorList {
      Tensor dx = empty_like(ctx.grad());
      if (dx.is_cuda())
        TG_CUDA_ONLY(sqrt_backward_cuda(dx, ctx.grad(), ctx.saved("out")));
      else
        sqrt_backward_cpu(dx, ctx.grad(), ctx.saved("out"));
      return {dx};
    });
  }
  return out;
}

}  // namespace tg
