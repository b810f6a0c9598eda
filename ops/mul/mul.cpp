#include "ops/mul/mul.h"

#include "core/cuda/cuda_only.h"
#include "core/tape.h"
#include "ops/add/add.h"
#include "ops/common/elementwise.h"
#include "ops/common/op_doc.h"
#include "ops/sum/sum.h"

namespace tg {

TG_OP_DOC(mul) {
  return {.summary = "out = a * b, broadcasting",
          .forward_text = "out = a * b",
          .forward_tex = R"(\mathrm{out} = a \odot b)",
          .backward = {{"a",
                        "dL/da = sum_to(dL/dout * b, a.shape)",
                        R"(\dLd{a} = \operatorname{sum\_to}(\dLd{\mathrm{out}} \odot b))"},
                       {"b",
                        "dL/db = sum_to(dL/dout * a, b.shape)",
                        R"(\dLd{b} = \operatorname{sum\_to}(\dLd{\mathrm{out}} \odot a))"}}};
}

Tensor mul(const Tensor& a, const Tensor& b) {
  Tensor out = binary_forward(a, b, "mul", mul_forward_cpu, TG_CUDA_KERNEL(mul_forward_cuda));
  if (Recorder rec("mul", {a, b}, {out}); rec) {
    // Each input's gradient needs the other input: save only those that will be used.
    if (b.requires_grad()) rec.save("a", a);
    if (a.requires_grad()) rec.save("b", b);
    rec.forward([](const ForwardContext& f) -> TensorList {  // ta * b + a * tb
      return {add(mul(f.tangent_or_zeros(0), f.input(1)), mul(f.input(0), f.tangent_or_zeros(1)))};
    });
    rec.backward([](const BackwardContext& ctx) -> TensorList {
      const Tensor& g = ctx.grad();  // (broadcast shape)
      Tensor da = ctx.needs_grad(0) ? sum_to(mul(g, ctx.saved("b")), ctx.input_shape(0)) : Tensor();
      Tensor db = ctx.needs_grad(1) ? sum_to(mul(g, ctx.saved("a")), ctx.input_shape(1)) : Tensor();
      return {da, db};
    });
  }
  return out;
}

Tensor mul(const Tensor& a, double b) { return mul(a, scalar_like(a, b)); }

}  // namespace tg
