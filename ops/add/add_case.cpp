#include "ops/add/add.h"
#include "ops/op_registry.h"

TG_OP_CASE(add) {
  return binary_case({.summary = "out = a + b, broadcasting",
                      .forward_text = "out = a + b",
                      .forward_tex = R"(\mathrm{out} = a + b)",
                      .backward = {{"a",
                                    "da = sum_to(grad, a.shape)",
                                    R"(\bar{a} = \operatorname{sum\_to}(\overline{\mathrm{out}}, )"
                                    R"(\operatorname{shape}(a)))"},
                                   {"b",
                                    "db = sum_to(grad, b.shape)",
                                    R"(\bar{b} = \operatorname{sum\_to}(\overline{\mathrm{out}}, )"
                                    R"(\operatorname{shape}(b)))"}}},
                     [](const Tensor& a, const Tensor& b) { return add(a, b); });
}
