#include "ops/add/add.h"
#include "ops/op_registry.h"
#include "ops/split/split.h"

TG_OP_CASE(split) {
  return {.doc = {.summary = "x cut along one dim into consecutive views",
                  .forward_text = "piece_i = x[..., o_i : o_i + n_i, ...] along dim, o_i = n_0 + ... + n_(i-1)",
                  .forward_tex = R"(\mathrm{piece}_i = x[\ldots, o_i : o_i + n_i, \ldots])",
                  .backward = {{"x",
                                "dx = cat(grad_0, grad_1, ..., dim) (zeros for a piece that got no gradient)",
                                R"(\bar{x} = \left[\, \overline{\mathrm{piece}}_0 \;\middle|\; )"
                                R"(\overline{\mathrm{piece}}_1 \;\middle|\; \cdots \,\right]_{\text{dim}})"}}},
          .inputs = [] { return std::vector<Tensor>{case_input({5, 2}, 1)}; },
          .fn = [](const std::vector<Tensor>& in) {
            auto pieces = split(in[0], 2, 0);
            return add(pieces[0], pieces[1]);
          }};
}
