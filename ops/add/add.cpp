#include "ops/add/add.h"

#include "core/cuda/cuda_only.h"
#include "core/tape.h"
#include "ops/common/elementwise.h"
#include "ops/common/op_doc.h"
#include "ops/sum/sum.h"

namespace tg {

TG_OP_DOC(add) {
  return {.summary = "out = a + b, broadcasting",
          .forward_text = "out = a + b",
          .forward_tex = R"(\mathrm{out} = a + b)",
          .backward = {{"a",
                        "dL/da = sum_to(dL/dout, a.shape)",
                        R"(\dLd{a} = \operatorname{sum\_to}(\dLd{\mathrm{out}}, )"
                        R"(\operatorname{shape}(a)))"},
                       {"b",
                        "dL/db = sum_to(dL/dout, b.shape)",
                        R"(\dLd{b} = \operatorname{sum\_to}(\dLd{\mathrm{out}}, )"
                        R"(\operatorname{shape}(b)))"}}};
}

Tensor add(const Tensor& a, const Tensor& b) {
  Tensor out = binary_forward(a, b, "add", add_forward_cpu, TG_CUDA_KERNEL(add_forward_cuda));
  if (Recorder rec("add", {a, b}, {out}); rec) {
    rec.forward([](const ForwardContext& f) -> TensorList {
      return {add(f.tangent_or_zeros(0), f.tangent_or_zeros(1))};
    });
    rec.backward([](const BackwardContext& ctx) -> TensorList {
      return {sum_to(ctx.grad(), ctx.input_shape(0)), sum_to(ctx.grad(), ctx.input_shape(1))};
    });
  }
  return out;
}

Tensor add(const Tensor& a, double b) { return add(a, scalar_like(a, b)); }

}  // namespace tg
