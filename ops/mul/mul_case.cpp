#include "ops/mul/mul.h"
#include "ops/op_registry.h"

TG_OP_CASE(mul) {
  return binary_case({.summary = "out = a * b, broadcasting",
                      .forward_text = "out = a * b",
                      .forward_tex = R"(\mathrm{out} = a \odot b)",
                      .backward = {{"a",
                                    "da = sum_to(grad * b, a.shape)",
                                    R"(\bar{a} = \operatorname{sum\_to}(\overline{\mathrm{out}} \odot b))"},
                                   {"b",
                                    "db = sum_to(grad * a, b.shape)",
                                    R"(\bar{b} = \operatorname{sum\_to}(\overline{\mathrm{out}} \odot a))"}}},
                     [](const Tensor& a, const Tensor& b) { return mul(a, b); });
}
