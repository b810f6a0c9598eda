#include "ops/sub/sub.h"

#include "core/cuda/cuda_only.h"
#include "core/tape.h"
#include "ops/common/elementwise.h"
#include "ops/common/op_doc.h"
#include "ops/neg/neg.h"
#include "ops/sum/sum.h"

namespace tg {

TG_OP_DOC(sub) {
  return {.summary = "out = a - b, broadcasting",
          .forward_text = "out = a - b",
          .forward_tex = R"(\mathrm{out} = a - b)",
          .backward = {{"a",
                        "dL/da = sum_to(dL/dout, a.shape)",
                        R"(\dLd{a} = \operatorname{sum\_to}(\dLd{\mathrm{out}}, )"
                        R"(\operatorname{shape}(a)))"},
                       {"b",
                        "dL/db = -sum_to(dL/dout, b.shape)",
                        R"(\dLd{b} = -\operatorname{sum\_to}(\dLd{\mathrm{out}}, )"
                        R"(\operatorname{shape}(b)))"}}};
}

Tensor sub(const Tensor& a, const Tensor& b) {
  Tensor out = binary_forward(a, b, "sub", sub_forward_cpu, TG_CUDA_KERNEL(sub_forward_cuda));
  if (Recorder rec("sub", {a, b}, {out}); rec) {
    rec.forward([](const ForwardContext& f) -> TensorList {
      return {sub(f.tangent_or_zeros(0), f.tangent_or_zeros(1))};
    });
    rec.backward([](const BackwardContext& ctx) -> TensorList {
      const Tensor& g = ctx.grad();  // (broadcast shape)
      Tensor da = ctx.needs_grad(0) ? sum_to(g, ctx.input_shape(0)) : Tensor();
      Tensor db = ctx.needs_grad(1) ? neg(sum_to(g, ctx.input_shape(1))) : Tensor();
      return {da, db};
    });
  }
  return out;
}

Tensor sub(const Tensor& a, double b) { return sub(a, scalar_like(a, b)); }
Tensor sub(double a, const Tensor& b) {
  check_floating(b, "sub", "b");  // before scalar_like makes an `a` of b's dtype
  return sub(scalar_like(b, a), b);
}

}  // namespace tg
