#include "ops/exp/exp.h"
#include "ops/op_registry.h"

TG_OP_CASE(exp) {
  return unary_case({.summary = "out = e^x",
                     .forward_text = "out = e^x",
                     .forward_tex = R"(\mathrm{out} = e^{x})",
                     .backward = {{"x",
                                   "dx = grad * out",
                                   R"(\bar{x} = \overline{\mathrm{out}} \odot \mathrm{out})"}}},
                    [](const Tensor& x) { return exp(x); });
}
