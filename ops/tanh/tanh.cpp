#include "ops/tanh/tanh.h"

#include "core/cuda/cuda_only.h"
#include "ops/common/elementwise.h"
#include "ops/common/op_doc.h"
#include "ops/mul/mul.h"
#include "ops/sub/sub.h"

namespace tg {

namespace {
// f'(x) = 1 - tanh(x)^2 = 1 - out^2.
Tensor tanh_derivative(const Tensor& out) { return sub(1.0, mul(out, out)); }
}  // namespace

TG_OP_DOC(tanh) {
  return {.summary = "out = tanh(x)",
          .forward_text = "out = tanh(x)",
          .forward_tex = R"(\mathrm{out} = \tanh x)",
          .backward = {{"x",
                        "dL/dx = dL/dout * (1 - out^2)",
                        R"(\dLd{x} = \dLd{\mathrm{out}} \odot (1 - \mathrm{out}^2))"}}};
}

Tensor tanh(const Tensor& x) {
  return unary_op(x, "tanh", UnarySaves::out, tanh_derivative, {tanh_forward_cpu, tanh_backward_cpu},
                  {TG_CUDA_KERNEL(tanh_forward_cuda), TG_CUDA_KERNEL(tanh_backward_cuda)});
}

}  // namespace tg
