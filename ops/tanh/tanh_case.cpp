#include "ops/op_registry.h"
#include "ops/tanh/tanh.h"

TG_OP_CASE(tanh) {
  return unary_case({.summary = "out = tanh(x)",
                     .forward_text = "out = tanh(x)",
                     .forward_tex = R"(\mathrm{out} = \tanh x)",
                     .backward = {{"x",
                                   "dx = grad * (1 - out^2)",
                                   R"(\bar{x} = \overline{\mathrm{out}} \odot (1 - \mathrm{out}^2))"}}},
                    [](const Tensor& x) { return tanh(x); });
}
