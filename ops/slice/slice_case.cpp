#include "ops/op_registry.h"
#include "ops/slice/slice.h"

TG_OP_CASE(slice) {
  return {.doc = {.summary = "a view keeping positions start, start+step, ... < end of one dim",
                  .forward_text = "out = x[..., start:end:step, ...] along dim",
                  .forward_tex = R"(\mathrm{out} = x[\ldots, \text{start} : \text{end} : \text{step}, \ldots])",
                  .backward = {{"x",
                                "dx = zeros(x.shape) with dx[..., start:end:step, ...] = grad",
                                R"(\bar{x} = 0 \text{ except } \bar{x}[\ldots, \text{start} : \text{end} : )"
                                R"(\text{step}, \ldots] = \overline{\mathrm{out}})"}}},
          .inputs = [] { return std::vector<Tensor>{case_input({4, 3}, 1)}; },
          .fn = [](const std::vector<Tensor>& in) { return slice(in[0], 0, 1, 3); }};
}
