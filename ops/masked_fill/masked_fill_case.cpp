#include "core/factories.h"

#include "ops/masked_fill/masked_fill.h"
#include "ops/op_registry.h"

TG_OP_CASE(masked_fill) {
  return {.doc = {.summary = "x with a value written wherever the mask is true",
                  .forward_text = "out = mask ? value : x (mask broadcast to x; true = filled)",
                  .forward_tex = R"(\mathrm{out} = \begin{cases} v & \text{where mask} \\ x & \text{elsewhere} )"
                                 R"(\end{cases})",
                  .backward = {{"x",
                                "dx = mask ? 0 : grad",
                                R"(\bar{x} = [\lnot\,\mathrm{mask}] \odot \overline{\mathrm{out}})"}}},
          .inputs = [] { return std::vector<Tensor>{case_input({2, 3}, 1)}; },
          .fn = [](const std::vector<Tensor>& in) {
            return masked_fill(in[0], tensor_bool({true, false, true}, {3}, in[0].device()), 0.5);
          }};
}
