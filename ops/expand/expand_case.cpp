#include "ops/expand/expand.h"
#include "ops/op_registry.h"

TG_OP_CASE(expand) {
  return {.doc = {.summary = "a broadcast view of x (stride 0 on expanded dims)",
                  .forward_text = "out = x broadcast to shape (stride 0 on the expanded dims)",
                  .forward_tex = R"(\mathrm{out} = \operatorname{broadcast}(x, \text{shape}))",
                  .backward = {{"x",
                                "dx = sum_to(grad, x.shape)",
                                R"(\bar{x} = \operatorname{sum\_to}(\overline{\mathrm{out}}, )"
                                R"(\operatorname{shape}(x)))"}}},
          .inputs = [] { return std::vector<Tensor>{case_input({3, 1}, 1)}; },
          .fn = [](const std::vector<Tensor>& in) { return expand(in[0], {3, 4}); }};
}
