#include "ops/pow/pow.h"

#include "core/cuda/cuda_only.h"
#include "core/factories.h"
#include "core/tape.h"
#include "ops/common/elementwise.h"

namespace tg {

Tensor pow(const Tensor& x, double p) {
  Tensor out = unary_output(x, "pow");
  if (out.is_cuda())
    TG_CUDA_ONLY(pow_forward_cuda(out, x, p));
  else
    pow_forward_cpu(out, x, p);
  if (Recorder rec("pow", {x}, {out}); rec) {
    rec.save("x", x).attr("p", p);
    rec.backward([p](const BackwardContext& ctx) -> TensorList {
      Tensor dx = empty_like(ctx.grad());
      if (dx.is_cuda())
        TG_CUDA_ONLY(pow_backward_cuda(dx, ctx.grad(), ctx.saved("x"), p));
      else
        pow_backward_cpu(dx, ctx.grad(), ctx.saved("x"), p);
      return {dx};
    });
  }
  return out;
}

}  // namespace tg
