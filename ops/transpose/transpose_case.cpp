#include "ops/op_registry.h"
#include "ops/transpose/transpose.h"

TG_OP_CASE(transpose) {
  return {.doc = {.summary = "a view with two dims swapped",
                  .forward_text = "out = x with dims dim0 and dim1 swapped",
                  .forward_tex = R"(\mathrm{out} = x^{\top_{d_0 d_1}})",
                  .backward = {{"x",
                                "dx = transpose(grad, dim0, dim1)",
                                R"(\bar{x} = \overline{\mathrm{out}}^{\top_{d_0 d_1}})"}}},
          .inputs = [] { return std::vector<Tensor>{case_input({2, 3}, 1)}; },
          .fn = [](const std::vector<Tensor>& in) { return transpose(in[0], 0, 1); }};
}
