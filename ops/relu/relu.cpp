#include "ops/relu/relu.h"

#include "core/cuda/cuda_only.h"
#include "core/factories.h"
#include "core/grad_mode.h"
#include "ops/common/elementwise.h"
#include "ops/common/op_doc.h"

namespace tg {

namespace {
// f'(x) = 1 where x > 0, else 0 (0 at 0, as the kernel): a constant, since a step's derivative
// is 0 wherever it has one. The backward kernel on a gradient of ones computes it.
Tensor relu_derivative(const Tensor& x) {
  NoGradGuard no_grad;
  Tensor step = empty_like(x);
  if (x.is_cuda())
    TG_CUDA_ONLY(relu_backward_cuda(step, ones_like(x), x));
  else
    relu_backward_cpu(step, ones_like(x), x);
  return step;
}
}  // namespace

TG_OP_DOC(relu) {
  return {.summary = "out = max(x, 0)",
          .forward_text = "out = max(x, 0)",
          .forward_tex = R"(\mathrm{out} = \max(x, 0))",
          .backward = {{"x",
                        "dL/dx = dL/dout * (x > 0)",
                        R"(\dLd{x} = \dLd{\mathrm{out}} \odot [x > 0])"}}};
}

Tensor relu(const Tensor& x) {
  return unary_op(x, "relu", UnarySaves::x, relu_derivative, {relu_forward_cpu, relu_backward_cpu},
                  {TG_CUDA_KERNEL(relu_forward_cuda), TG_CUDA_KERNEL(relu_backward_cuda)});
}

}  // namespace tg
