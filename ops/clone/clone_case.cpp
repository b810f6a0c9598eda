#include "ops/clone/clone.h"
#include "ops/op_registry.h"

TG_OP_CASE(clone) {
  return unary_case({.summary = "a contiguous copy of x in its own storage",
                     .forward_text = "out = x (a copy in its own storage)",
                     .forward_tex = R"(\mathrm{out} = x)",
                     .backward = {{"x",
                                   "dx = grad",
                                   R"(\bar{x} = \overline{\mathrm{out}})"}}},
                    [](const Tensor& x) { return clone(x); });
}
