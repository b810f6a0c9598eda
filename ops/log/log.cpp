#include "ops/log/log.h"

#include "core/cuda/cuda_only.h"
#include "ops/common/elementwise.h"
#include "ops/common/op_doc.h"
#include "ops/div/div.h"

namespace tg {

namespace {
// f'(x) = 1 / x.
Tensor log_derivative(const Tensor& x) { return div(1.0, x); }
}  // namespace

TG_OP_DOC(log) {
  return {.summary = "out = ln(x)",
          .forward_text = "out = ln(x)",
          .forward_tex = R"(\mathrm{out} = \ln x)",
          .backward = {{"x",
                        "dL/dx = dL/dout / x",
                        R"(\dLd{x} = \dLd{\mathrm{out}} \oslash x)"}}};
}

Tensor log(const Tensor& x) {
  return unary_op(x, "log", UnarySaves::x, log_derivative, {log_forward_cpu, log_backward_cpu},
                  {TG_CUDA_KERNEL(log_forward_cuda), TG_CUDA_KERNEL(log_backward_cuda)});
}

}  // namespace tg
