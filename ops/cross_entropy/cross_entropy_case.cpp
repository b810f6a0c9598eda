#include "core/factories.h"

#include "ops/cross_entropy/cross_entropy.h"
#include "ops/op_registry.h"

TG_OP_CASE(cross_entropy) {
  return {.doc = {.summary = "mean negative log-likelihood of the targets under softmax(logits)",
                  .forward_text = "loss[n] = log sum_c e^x[n,c] - (1 - eps) x[n,t_n] - (eps / C) sum_c x[n,c], "
                                  "then mean over the targets not ignored, sum or none",
                  .forward_tex = R"(\ell_n = \log \sum_c e^{x_{nc}} - (1 - \varepsilon)\, x_{n t_n} - )"
                                 R"(\tfrac{\varepsilon}{C} \sum_c x_{nc})",
                  .backward = {{"logits",
                                "dlogits[n,c] = g[n] * (softmax(x[n])_c - q[n,c]), q[n,c] = (1 - eps) [c == t_n] "
                                "+ eps / C, g = grad / count (mean), grad (sum), grad[n] (none); 0 on ignored "
                                "rows",
                                R"(\bar{x}_{nc} = g_n \left(\operatorname{softmax}(x_n)_c - q_{nc}\right),\quad )"
                                R"(q_{nc} = (1 - \varepsilon)[c = t_n] + \tfrac{\varepsilon}{C})"}}},
          .inputs = [] { return std::vector<Tensor>{case_input({4, 5}, 1, -2, 2)}; },
          .fn = [](const std::vector<Tensor>& in) {
            return cross_entropy(in[0], tensor_i64({3, -100, 0, 4}, {4}, in[0].device()));
          }};
}
