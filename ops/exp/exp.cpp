#include "ops/exp/exp.h"

#include "core/cuda/cuda_only.h"
#include "ops/common/elementwise.h"
#include "ops/common/op_doc.h"

namespace tg {

namespace {
// f'(x) = e^x = out.
Tensor exp_derivative(const Tensor& out) { return out; }
}  // namespace

TG_OP_DOC(exp) {
  return {.summary = "out = e^x",
          .forward_text = "out = e^x",
          .forward_tex = R"(\mathrm{out} = e^{x})",
          .backward = {{"x",
                        "dL/dx = dL/dout * out",
                        R"(\dLd{x} = \dLd{\mathrm{out}} \odot \mathrm{out})"}}};
}

Tensor exp(const Tensor& x) {
  return unary_op(x, "exp", UnarySaves::out, exp_derivative, {exp_forward_cpu, exp_backward_cpu},
                  {TG_CUDA_KERNEL(exp_forward_cuda), TG_CUDA_KERNEL(exp_backward_cuda)});
}

}  // namespace tg
