#include "ops/div/div.h"
#include "ops/op_registry.h"

TG_OP_CASE(div) {
  return binary_case({.summary = "out = a / b, broadcasting",
                      .forward_text = "out = a / b",
                      .forward_tex = R"(\mathrm{out} = a \oslash b)",
                      .backward = {{"a",
                                    "da = sum_to(grad / b, a.shape)",
                                    R"(\bar{a} = \operatorname{sum\_to}(\overline{\mathrm{out}} \oslash b))"},
                                   {"b",
                                    "db = sum_to(-grad * a / b^2, b.shape)",
                                    R"(\bar{b} = \operatorname{sum\_to}(-\overline{\mathrm{out}} \odot a \oslash )"
                                    R"(b^2))"}}},
                     [](const Tensor& a, const Tensor& b) { return div(a, b); }, 0.5, 1.5);
}
