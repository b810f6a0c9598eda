#include "ops/op_registry.h"
#include "ops/reshape/reshape.h"

TG_OP_CASE(reshape) {
  return {.doc = {.summary = "the same elements in a new shape (row-major)",
                  .forward_text = "out = x's elements in row-major order, in a new shape",
                  .forward_tex = R"(\mathrm{out} = \operatorname{reshape}(x, \text{shape}))",
                  .backward = {{"x",
                                "dx = reshape(grad, x.shape)",
                                R"(\bar{x} = \operatorname{reshape}(\overline{\mathrm{out}}, )"
                                R"(\operatorname{shape}(x)))"}}},
          .inputs = [] { return std::vector<Tensor>{case_input({2, 3}, 1)}; },
          .fn = [](const std::vector<Tensor>& in) { return reshape(in[0], {3, 2}); },
          .tape_aliases = {"view"}};
}
