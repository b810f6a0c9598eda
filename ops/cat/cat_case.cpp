#include "ops/cat/cat.h"
#include "ops/op_registry.h"

TG_OP_CASE(cat) {
  return {.doc = {.summary = "the tensors joined end to end along one dim",
                  .forward_text = "out = cat(tensors, dim): tensors[i] fills positions o_i .. o_i + n_i - 1 of "
                                  "dim, o_i = n_0 + ... + n_(i-1)",
                  .forward_tex = R"(\mathrm{out} = \left[\, t_0 \;\middle|\; t_1 \;\middle|\; \cdots )"
                                 R"(\,\right]_{\text{dim}})",
                  .backward = {{"tensors[i]",
                                "dtensors[i] = narrow(grad, dim, o_i, n_i)",
                                R"(\bar{t}_i = \overline{\mathrm{out}}[\ldots, o_i : o_i + n_i, \ldots])"}}},
          .inputs = [] { return std::vector<Tensor>{case_input({2, 3}, 1), case_input({2, 2}, 2)}; },
          .fn = [](const std::vector<Tensor>& in) { return cat({in[0], in[1]}, 1); }};
}
