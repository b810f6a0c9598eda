#include "ops/sigmoid/sigmoid.h"

#include "core/cuda/cuda_only.h"
#include "ops/common/elementwise.h"
#include "ops/common/op_doc.h"
#include "ops/mul/mul.h"
#include "ops/sub/sub.h"

namespace tg {

namespace {
// f'(x) = s (1 - s), s = out.
Tensor sigmoid_derivative(const Tensor& out) { return mul(out, sub(1.0, out)); }
}  // namespace

TG_OP_DOC(sigmoid) {
  return {.summary = "out = 1 / (1 + e^-x)",
          .forward_text = "out = 1 / (1 + e^-x)",
          .forward_tex = R"(\mathrm{out} = \sigma(x) = \frac{1}{1 + e^{-x}})",
          .backward = {{"x",
                        "dL/dx = dL/dout * out * (1 - out)",
                        R"(\dLd{x} = \dLd{\mathrm{out}} \odot \mathrm{out} \odot (1 - \mathrm{out}))"}}};
}

Tensor sigmoid(const Tensor& x) {
  return unary_op(x, "sigmoid", UnarySaves::out, sigmoid_derivative, {sigmoid_forward_cpu, sigmoid_backward_cpu},
                  {TG_CUDA_KERNEL(sigmoid_forward_cuda), TG_CUDA_KERNEL(sigmoid_backward_cuda)});
}

}  // namespace tg
