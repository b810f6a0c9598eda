#include "ops/op_registry.h"
#include "ops/permute/permute.h"

TG_OP_CASE(permute) {
  return {.doc = {.summary = "a view with the dims reordered",
                  .forward_text = "out = permute(x, dims): out dim i is x dim dims[i]",
                  .forward_tex = R"(\mathrm{out} = \operatorname{permute}(x, \pi))",
                  .backward = {{"x",
                                "dx = permute(grad, inverse), inverse[dims[i]] = i",
                                R"(\bar{x} = \operatorname{permute}(\overline{\mathrm{out}}, \pi^{-1}))"}}},
          .inputs = [] { return std::vector<Tensor>{case_input({2, 3, 4}, 1)}; },
          .fn = [](const std::vector<Tensor>& in) { return permute(in[0], {2, 0, 1}); }};
}
