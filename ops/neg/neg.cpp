#include "ops/neg/neg.h"

#include "core/cuda/cuda_only.h"
#include "core/tape.h"
#include "ops/common/elementwise.h"
#include "ops/common/op_doc.h"

namespace tg {

TG_OP_DOC(neg) {
  return {.summary = "out = -x",
          .forward_text = "out = -x",
          .forward_tex = R"(\mathrm{out} = -x)",
          .backward = {{"x",
                        "dL/dx = -dL/dout",
                        R"(\dLd{x} = -\dLd{\mathrm{out}})"}}};
}

Tensor neg(const Tensor& x) {
  Tensor out = unary_forward(x, "neg", neg_forward_cpu, TG_CUDA_KERNEL(neg_forward_cuda));
  if (Recorder rec("neg", {x}, {out}); rec) {
    rec.forward([](const ForwardContext& f) -> TensorList { return {neg(f.tangent(0))}; });
    rec.backward([](const BackwardContext& ctx) -> TensorList { return {neg(ctx.grad())}; });
  }
  return out;
}

}  // namespace tg
