#include "ops/neg/neg.h"
#include "ops/op_registry.h"

TG_OP_CASE(neg) {
  return unary_case({.summary = "out = -x",
                     .forward_text = "out = -x",
                     .forward_tex = R"(\mathrm{out} = -x)",
                     .backward = {{"x",
                                   "dx = -grad",
                                   R"(\bar{x} = -\overline{\mathrm{out}})"}}},
                    [](const Tensor& x) { return neg(x); });
}
