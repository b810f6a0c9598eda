#include "ops/erf/erf.h"
#include "ops/op_registry.h"

TG_OP_CASE(erf) {
  return unary_case({.summary = "out = erf(x), the Gauss error function",
                     .forward_text = "out = erf(x) = 2/sqrt(pi) * integral_0^x e^(-t^2) dt",
                     .forward_tex = R"(\mathrm{out} = \operatorname{erf}(x) = \tfrac{2}{\sqrt{\pi}} )"
                                    R"(\int_0^x e^{-t^2}\,dt)",
                     .backward = {{"x",
                                   "dx = grad * 2/sqrt(pi) e^(-x^2)",
                                   R"(\bar{x} = \overline{\mathrm{out}} \odot \tfrac{2}{\sqrt{\pi}} e^{-x^2})"}}},
                    [](const Tensor& x) { return erf(x); }, -2, 2);
}
