#include "ops/op_registry.h"
#include "ops/sum/sum.h"

TG_OP_CASE(sum) {
  return {.doc = {.summary = "adds up the elements over some dims or all",
                  .forward_text = "out = sum of x over dims (or all)",
                  .forward_tex = R"(\mathrm{out} = \sum_k x_k)",
                  .backward = {{"x",
                                "dx = expand(grad, x.shape) (the summed dims put back as size 1 first)",
                                R"(\bar{x}_k = \overline{\mathrm{out}})"}}},
          .inputs = [] { return std::vector<Tensor>{case_input({2, 3}, 1)}; },
          .fn = [](const std::vector<Tensor>& in) { return sum(in[0], {0}); }};
}
