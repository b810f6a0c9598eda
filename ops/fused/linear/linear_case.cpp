#include "ops/fused/linear/linear.h"
#include "ops/op_registry.h"

TG_OP_CASE(linear) {
  return {.doc = {.summary = "y = x W^T + b as one op",
                  .forward_text = "y = x @ weight^T + bias",
                  .forward_tex = R"(y = x W^\top + b)",
                  .backward = {{"x",
                                "dx = grad @ weight",
                                R"(\bar{x} = \bar{y}\, W)"},
                               {"weight",
                                "dweight = grad^T @ x (over all rows of x)",
                                R"(\bar{W} = \bar{y}^\top x)"},
                               {"bias",
                                "dbias = sum over rows of grad",
                                R"(\bar{b} = \sum_{\text{rows}} \bar{y})"}}},
          .inputs = [] {
            return std::vector<Tensor>{case_input({2, 3, 4}, 1), case_input({5, 4}, 2), case_input({5}, 3)};
          },
          .fn = [](const std::vector<Tensor>& in) { return linear(in[0], in[1], in[2]); }};
}
