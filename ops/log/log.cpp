#include "ops/log/log.h"

#include "core/cuda/cuda_only.h"
#include "core/factories.h"
#include "core/tape.h"
#include "ops/common/elementwise.h"

namespace tg {

Tensor log(const Tensor& x) {
  Tensor out = unary_output(x, "log");
  if (out.is_cuda())
    TG_CUDA_ONLY(log_forward_cuda(out, x));
  else
    log_forward_cpu(out, x);
  if (Recorder rec("log", {x}, {out}); rec) {
    rec.save("x", x);
    rec.backward([](const BackwardContext& ctx) -> TensorList {
      Tensor dx = empty_like(ctx.grad());
      if (dx.is_cuda())
        TG_CUDA_ONLY(log_backward_cuda(dx, ctx.grad(), ctx.saved("x")));
      else
        log_backward_cpu(dx, ctx.grad(), ctx.saved("x"));
      return {dx};
    });
  }
  return out;
}

}  // namespace tg
