#include "ops/sqrt/sqrt.h"

#include "core/cuda/cuda_only.h"
#include "ops/common/elementwise.h"
#include "ops/common/op_doc.h"
#include "ops/div/div.h"

namespace tg {

namespace {
// f'(x) = 1 / (2 sqrt(x)) = 0.5 / out.
Tensor sqrt_derivative(const Tensor& out) { return div(0.5, out); }
}  // namespace

TG_OP_DOC(sqrt) {
  return {.summary = "out = sqrt(x)",
          .forward_text = "out = sqrt(x)",
          .forward_tex = R"(\mathrm{out} = \sqrt{x})",
          .backward = {{"x",
                        "dL/dx = dL/dout / (2 * out)",
                        R"(\dLd{x} = \frac{\dLd{\mathrm{out}}}{2\, \mathrm{out}})"}}};
}

Tensor sqrt(const Tensor& x) {
  return unary_op(x, "sqrt", UnarySaves::out, sqrt_derivative, {sqrt_forward_cpu, sqrt_backward_cpu},
                  {TG_CUDA_KERNEL(sqrt_forward_cuda), TG_CUDA_KERNEL(sqrt_backward_cuda)});
}

}  // namespace tg
