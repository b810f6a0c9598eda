#include "ops/op_registry.h"
#include "ops/squeeze/squeeze.h"

TG_OP_CASE(squeeze) {
  return {.doc = {.summary = "a view without size-1 dims",
                  .forward_text = "out = x without its size-1 dims (or without dim, if its size is 1)",
                  .forward_tex = R"(\mathrm{out} = \operatorname{squeeze}(x))",
                  .backward = {{"x",
                                "dx = reshape(grad, x.shape)",
                                R"(\bar{x} = \operatorname{reshape}(\overline{\mathrm{out}}, )"
                                R"(\operatorname{shape}(x)))"}}},
          .inputs = [] { return std::vector<Tensor>{case_input({2, 1, 3}, 1)}; },
          .fn = [](const std::vector<Tensor>& in) { return squeeze(in[0], 1); }};
}
