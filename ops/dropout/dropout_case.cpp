#include "core/rng.h"

#include "ops/dropout/dropout.h"
#include "ops/op_registry.h"

TG_OP_CASE(dropout) {
  return {.doc = {.summary = "zeroes each element with probability p, scales the rest by 1/(1-p)",
                  .forward_text = "out = keep ? x / (1 - p) : 0, keep[i] = (u[i] > p), u[i] uniform in [0, 1)",
                  .forward_tex = R"(\mathrm{out} = \frac{m \odot x}{1 - p},\quad m_i = [u_i > p])",
                  .backward = {{"x",
                                "dx = keep ? grad / (1 - p) : 0",
                                R"(\bar{x} = \frac{m \odot \overline{\mathrm{out}}}{1 - p})"}}},
          .inputs = [] { return std::vector<Tensor>{case_input({3, 4}, 1)}; },
          .fn = [](const std::vector<Tensor>& in) {
            Generator gen(7);  // the same mask at every evaluation
            return dropout(in[0], 0.4, true, gen);
          }};
}
