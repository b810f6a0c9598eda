#include "ops/log/log.h"
#include "ops/op_registry.h"

TG_OP_CASE(log) {
  return unary_case({.summary = "out = ln(x)",
                     .forward_text = "out = ln(x)",
                     .forward_tex = R"(\mathrm{out} = \ln x)",
                     .backward = {{"x",
                                   "dx = grad / x",
                                   R"(\bar{x} = \overline{\mathrm{out}} \oslash x)"}}},
                    [](const Tensor& x) { return log(x); }, 0.5, 2);
}
