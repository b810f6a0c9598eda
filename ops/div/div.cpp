#include "ops/div/div.h"

#include "core/cuda/cuda_only.h"
#include "core/tape.h"
#include "ops/common/elementwise.h"
#include "ops/common/op_doc.h"
#include "ops/mul/mul.h"
#include "ops/neg/neg.h"
#include "ops/sub/sub.h"
#include "ops/sum/sum.h"

namespace tg {

TG_OP_DOC(div) {
  return {.summary = "out = a / b, broadcasting",
          .forward_text = "out = a / b",
          .forward_tex = R"(\mathrm{out} = a \oslash b)",
          .backward = {{"a",
                        "dL/da = sum_to(dL/dout / b, a.shape)",
                        R"(\dLd{a} = \operatorname{sum\_to}(\dLd{\mathrm{out}} \oslash b))"},
                       {"b",
                        "dL/db = sum_to(-dL/dout * a / b^2, b.shape)",
                        R"(\dLd{b} = \operatorname{sum\_to}(-\dLd{\mathrm{out}} \odot a \oslash )"
                        R"(b^2))"}}};
}

Tensor div(const Tensor& a, const Tensor& b) {
  Tensor out = binary_forward(a, b, "div", div_forward_cpu, TG_CUDA_KERNEL(div_forward_cuda));
  if (Recorder rec("div", {a, b}, {out}); rec) {
    rec.save("b", b);
    if (b.requires_grad()) rec.save("out", out);
    rec.forward([](const ForwardContext& f) -> TensorList {  // ta / b - a tb / b^2 = (ta - out * tb) / b
      return {div(sub(f.tangent_or_zeros(0), mul(f.output(), f.tangent_or_zeros(1))), f.input(1))};
    });
    rec.backward([](const BackwardContext& ctx) -> TensorList {
      Tensor g_over_b = div(ctx.grad(), ctx.saved("b"));  // (broadcast shape)
      Tensor da = ctx.needs_grad(0) ? sum_to(g_over_b, ctx.input_shape(0)) : Tensor();
      // -grad * a / b^2 = -(grad / b) * (a / b) = -(grad / b) * out
      Tensor db = ctx.needs_grad(1) ? neg(sum_to(mul(g_over_b, ctx.saved("out")), ctx.input_shape(1))) : Tensor();
      return {da, db};
    });
  }
  return out;
}

Tensor div(const Tensor& a, double b) { return div(a, scalar_like(a, b)); }
Tensor div(double a, const Tensor& b) {
  check_floating(b, "div", "b");  // before scalar_like makes an `a` of b's dtype
  return div(scalar_like(b, a), b);
}

}  // namespace tg
