#include "ops/tanh/tanh.h"

#include "core/cuda/cuda_only.h"
#include "core/factories.h"
#include "core/tape.h"
#include "ops/common/elementwise.h"

namespace tg {

Tensor tanh(const Tensor& x) {
  Tensor out = unary_output(x, "tanh");
  if (out.is_cuda())
    TG_CUDA_ONLY(tanh_forward_cuda(out, x));
  else
    tanh_forward_cpu(out, x);
  if (Recorder rec("tanh", {x}, {out}); rec) {
    rec.save("out", out);
    rec.backward([](const BackwardContext& ctx) -> TensorList {
      Tensor dx = empty_like(ctx.grad());
      if (dx.is_cuda())
        TG_CUDA_ONLY(tanh_backward_cuda(dx, ctx.grad(), ctx.saved("out")));
      else
        tanh_backward_cpu(dx, ctx.grad(), ctx.saved("out"));
      return {dx};
    });
  }
  return out;
}

}  // namespace tg
