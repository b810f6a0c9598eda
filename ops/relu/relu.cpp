#include "ops/relu/relu.h"

#include "core/cuda/cuda_only.h"
#include "core/factories.h"
#include "core/grad_mode.h"
#include "ops/common/elementwise.h"
#include "ops/common/op_doc.h"

namespace tg {

// The backward kernel on a gradient of ones computes it.
Tensor relu_step(const Tensor& x) {
  NoGradGuard no_grad;
  Tensor step = empty_like(x);
  if (x.is_cuda())
    TG_CUDA_ONLY(relu_backward_cuda(step, ones_like(x), x));
  else
    relu_backward_cpu(step, ones_like(x), x);
  return step;
}

TG_OP_DOC(relu) {
  return {.summary = "out = max(x, 0)",
          .forward_text = "out = max(x, 0)",
          .forward_tex = R"(\mathrm{out} = \max(x, 0))",
          .backward = {{"x",
                        "dL/dx = dL/dout * (x > 0)",
                        R"(\dLd{x} = \dLd{\mathrm{out}} \odot [x > 0])"}}};
}

Tensor relu(const Tensor& x) {
  return unary_op(x, "relu", UnarySaves::x, relu_step, {relu_forward_cpu, relu_backward_cpu},
                  {TG_CUDA_KERNEL(relu_forward_cuda), TG_CUDA_KERNEL(relu_backward_cuda)});
}

}  // namespace tg
