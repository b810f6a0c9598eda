#include "ops/op_registry.h"
#include "ops/sqrt/sqrt.h"

TG_OP_CASE(sqrt) {
  return unary_case({.summary = "out = sqrt(x)",
                     .forward_text = "out = sqrt(x)",
                     .forward_tex = R"(\mathrm{out} = \sqrt{x})",
                     .backward = {{"x",
                                   "dx = grad / (2 * out)",
                                   R"(\bar{x} = \frac{\overline{\mathrm{out}}}{2\, \mathrm{out}})"}}},
                    [](const Tensor& x) { return sqrt(x); }, 0.5, 2);
}
