#include "ops/gelu/gelu.h"
#include "ops/op_registry.h"

TG_OP_CASE(gelu) {
  return unary_case({.summary = "out = x Phi(x), Phi the standard normal CDF",
                     .forward_text = "out = x Phi(x) = 0.5 x (1 + erf(x / sqrt(2)))",
                     .forward_tex = R"(\mathrm{out} = x\,\Phi(x) = \tfrac{1}{2} x \left(1 + \operatorname{erf}(x / )"
                                    R"(\sqrt{2})\right))",
                     .backward = {{"x",
                                   "dx = grad * (Phi(x) + x phi(x)), phi(x) = e^(-x^2/2) / sqrt(2 pi)",
                                   R"(\bar{x} = \overline{\mathrm{out}} \odot \left(\Phi(x) + )"
                                   R"(x\,\varphi(x)\right),\quad \varphi(x) = \tfrac{e^{-x^2/2}}{\sqrt{2\pi}})"}}},
                    [](const Tensor& x) { return gelu(x); });
}
