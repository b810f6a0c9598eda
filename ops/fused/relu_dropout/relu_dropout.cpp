#include "ops/fused/relu_dropout/relu_dropout.h"

#include "ops/common/op_doc.h"
#include "ops/dropout/dropout.h"
#include "ops/relu/relu.h"

namespace tg {

TG_OP_DOC(relu_dropout) {
  return {.summary = "dropout(relu(x)) in one pass each way",
          .forward_text = "out = keep ? relu(x) / (1 - p) : 0, keep[i] = (u[i] > p) as dropout draws it",
          .forward_tex = R"(\mathrm{out} = \frac{m \odot \max(x, 0)}{1 - p})",
          .backward = {{"x",
                        "dL/dx = (keep and x > 0) ? dL/dout / (1 - p) : 0",
                        R"(\dLd{x} = \frac{m \odot [x > 0] \odot \dLd{\mathrm{out}}}{1 - p})"}}};
}

Tensor relu_dropout(const Tensor& x, double p, bool training, Generator& gen) {
  check_dropout_args(x, p, "relu_dropout");
  if (!training || p == 0) return relu(x);
  return dropout_drawn(x, p, gen, true);
}

}  // namespace tg
