#include "core/rng.h"

#include "ops/fused/relu_dropout/relu_dropout.h"
#include "ops/op_registry.h"

TG_OP_CASE(relu_dropout) {
  return {.doc = {.summary = "dropout(relu(x)) in one pass each way",
                  .forward_text = "out = keep ? relu(x) / (1 - p) : 0, keep[i] = (u[i] > p) as dropout draws it",
                  .forward_tex = R"(\mathrm{out} = \frac{m \odot \max(x, 0)}{1 - p})",
                  .backward = {{"x",
                                "dx = (keep and x > 0) ? grad / (1 - p) : 0",
                                R"(\bar{x} = \frac{m \odot [x > 0] \odot \overline{\mathrm{out}}}{1 - p})"}}},
          .inputs = [] { return std::vector<Tensor>{case_input({3, 4}, 1)}; },
          .fn = [](const std::vector<Tensor>& in) {
            Generator gen(7);  // the same mask at every evaluation
            return relu_dropout(in[0], 0.4, true, gen);
          }};
}
