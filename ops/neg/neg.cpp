#include "ops/neg/neg.h"

#include "core/cuda/cuda_only.h"
#include "core/tape.h"
#include "ops/common/elementwise.h"

namespace tg {

Tensor neg(const Tensor& x) {
  Tensor out = unary_output(x, "neg");
  if (out.is_cuda())
    TG_CUDA_ONLY(neg_forward_cuda(out, x));
  else
    neg_forward_cpu(out, x);
  if (Recorder rec("neg", {x}, {out}); rec)
    rec.backward([](const BackwardContext& ctx) -> TensorList { return {neg(ctx.grad())}; });
  return out;
}

}  // namespace tg
