#include "ops/op_registry.h"
#include "ops/unsqueeze/unsqueeze.h"

TG_OP_CASE(unsqueeze) {
  return {.doc = {.summary = "a view with a new size-1 dim",
                  .forward_text = "out = x with a size-1 dim inserted at dim",
                  .forward_tex = R"(\mathrm{out} = \operatorname{unsqueeze}(x, \text{dim}))",
                  .backward = {{"x",
                                "dx = squeeze(grad, dim)",
                                R"(\bar{x} = \operatorname{squeeze}(\overline{\mathrm{out}}, \text{dim}))"}}},
          .inputs = [] { return std::vector<Tensor>{case_input({2, 3}, 1)}; },
          .fn = [](const std::vector<Tensor>& in) { return unsqueeze(in[0], 1); }};
}
