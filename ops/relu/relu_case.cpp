#include "ops/op_registry.h"
#include "ops/relu/relu.h"

TG_OP_CASE(relu) {
  return unary_case({.summary = "out = max(x, 0)",
                     .forward_text = "out = max(x, 0)",
                     .forward_tex = R"(\mathrm{out} = \max(x, 0))",
                     .backward = {{"x",
                                   "dx = grad * (x > 0)",
                                   R"(\bar{x} = \overline{\mathrm{out}} \odot [x > 0])"}}},
                    [](const Tensor& x) { return relu(x); });
}
