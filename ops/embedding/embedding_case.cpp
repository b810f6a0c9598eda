#include "core/factories.h"

#include "ops/embedding/embedding.h"
#include "ops/op_registry.h"

TG_OP_CASE(embedding) {
  return {.doc = {.summary = "rows of a table looked up by integer index",
                  .forward_text = "out[i, c] = weight[indices[i], c]",
                  .forward_tex = R"(\mathrm{out}_{i,c} = W_{\mathrm{idx}_i,\, c})",
                  .backward = {{"weight",
                                "dweight[v, c] = sum of grad[i, c] over the positions i with indices[i] == v (0 "
                                "for the padding_idx row)",
                                R"(\bar{W}_{v,c} = \sum_{i \,:\, \mathrm{idx}_i = v} \overline{\mathrm{out}}_{i,c})"}}},
          .inputs = [] { return std::vector<Tensor>{case_input({5, 3}, 1)}; },
          .fn = [](const std::vector<Tensor>& in) {
            return embedding(tensor_i64({2, 0, 2, 4, 1, 2}, {2, 3}, in[0].device()), in[0]);
          }};
}
