#include "ops/op_registry.h"
#include "ops/pow/pow.h"

TG_OP_CASE(pow) {
  return unary_case({.summary = "out = x^p for a scalar p",
                     .forward_text = "out = x^p",
                     .forward_tex = R"(\mathrm{out} = x^{p})",
                     .backward = {{"x",
                                   "dx = grad * p * x^(p-1)",
                                   R"(\bar{x} = \overline{\mathrm{out}} \odot p\, x^{p-1})"}}},
                    [](const Tensor& x) { return pow(x, 3); }, 0.5, 2);
}
