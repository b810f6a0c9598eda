#include "ops/mean/mean.h"
#include "ops/op_registry.h"

TG_OP_CASE(mean) {
  return {.doc = {.summary = "the average over some dims or all",
                  .forward_text = "out = sum(x, dims) / n, n = the number of elements averaged",
                  .forward_tex = R"(\mathrm{out} = \frac{1}{n} \sum_{k} x_k)",
                  .backward = {{"x",
                                "dx = expand(grad, x.shape) / n",
                                R"(\bar{x}_k = \overline{\mathrm{out}} / n)"}}},
          .inputs = [] { return std::vector<Tensor>{case_input({2, 3, 4}, 1)}; },
          .fn = [](const std::vector<Tensor>& in) { return mean(in[0], {1}); }};
}
