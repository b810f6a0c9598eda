#include "ops/op_registry.h"
#include "ops/sigmoid/sigmoid.h"

TG_OP_CASE(sigmoid) {
  return unary_case({.summary = "out = 1 / (1 + e^-x)",
                     .forward_text = "out = 1 / (1 + e^-x)",
                     .forward_tex = R"(\mathrm{out} = \sigma(x) = \frac{1}{1 + e^{-x}})",
                     .backward = {{"x",
                                   "dx = grad * out * (1 - out)",
                                   R"(\bar{x} = \overline{\mathrm{out}} \odot \mathrm{out} \odot (1 - \mathrm{out}))"}}},
                    [](const Tensor& x) { return sigmoid(x); });
}
