#include "ops/fused/fused_attention/fused_attention.h"
#include "ops/op_registry.h"

TG_OP_CASE(fused_attention) {
  return {.doc = {.summary = "softmax(q k^T * scale, masked) v in one op, saving only out and log-sum-exp",
                  .forward_text = "out = P v, P = softmax(scale * q k^T + masks) over the keys (times the "
                                  "dropout mask / (1 - p) in training), scale = 1/sqrt(head size)",
                  .forward_tex = R"(\mathrm{out} = P\, v,\quad P = \operatorname{softmax}\!\left(\tfrac{q )"
                                 R"(k^\top}{\sqrt{d_k}} + M\right))",
                  .backward = {{"q",
                                "dq = scale * dS @ k, dS = P * (dP - rowsum(dP * P)), dP = grad @ v^T (times the "
                                "dropout mask / (1 - p) in training); P recomputed from q and k",
                                R"(\bar{q} = \tfrac{1}{\sqrt{d_k}}\, \bar{S}\, k,\quad \bar{S} = P \odot )"
                                R"(\left(\bar{P} - \operatorname{rowsum}(\bar{P} \odot P)\right),\quad )"
                                R"(\bar{P} = \overline{\mathrm{out}}\, v^\top)"},
                               {"k",
                                "dk = scale * dS^T @ q",
                                R"(\bar{k} = \tfrac{1}{\sqrt{d_k}}\, \bar{S}^\top q)"},
                               {"v",
                                "dv = P^T @ grad (P times the dropout mask / (1 - p) in training)",
                                R"(\bar{v} = P^\top \overline{\mathrm{out}})"}}},
          .inputs = [] {
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
