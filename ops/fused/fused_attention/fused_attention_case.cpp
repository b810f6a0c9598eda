#include "ops/fused/fused_attention/fused_attention.h"
#include "ops/op_registry.h"

TG_OP_CASE(fused_attention) {
  return {.inputs = [] {
            return std::vector<Tensor>{case_input({1, 2, 3, 4}, 1), case_input({1, 2, 5, 4}, 2),
                                       case_input({1, 2, 5, 2}, 3)};
          },
          .fn = [](const std::vector<Tensor>& in) {
            AttentionOptions o;
            o.is_causal = true;
            o.key_padding_mask = padding_mask({4}, 5, in[0].device());
            return fused_attention(in[0], in[1], in[2], o);
          }};
}
