#include "ops/max/max.h"
#include "ops/op_registry.h"

TG_OP_CASE(max) {
  return {.doc = {.summary = "the largest element over one dim (with its position) or over all",
                  .forward_text = "out = max_k x_k over dim k (indices = its first argmax), or the max of all "
                                  "elements",
                  .forward_tex = R"(\mathrm{out} = \max_k x_k)",
                  .backward = {{"x",
                                "dx = zeros(x.shape) with dx[indices] = grad (the first maximum gets it all)",
                                R"(\bar{x}_k = [k = \operatorname{argmax}_j x_j]\; \overline{\mathrm{out}})"}}},
          .inputs = [] { return std::vector<Tensor>{case_input({3, 4}, 1)}; },
          .fn = [](const std::vector<Tensor>& in) { return max(in[0], 1); }};
}
