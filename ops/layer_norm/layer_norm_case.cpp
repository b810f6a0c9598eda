#include "ops/layer_norm/layer_norm.h"
#include "ops/op_registry.h"

TG_OP_CASE(layer_norm) {
  return {.doc = {.summary = "each row normalised over its trailing dims, then scaled and shifted",
                  .forward_text = "out = norm * weight + bias, norm = (x - mean) * rstd, rstd = 1 / sqrt(var + "
                                  "eps), mean and var (biased) over each row's trailing dims",
                  .forward_tex = R"(\mathrm{out} = \hat{x} \odot w + b,\quad \hat{x} = \frac{x - )"
                                 R"(\mu}{\sqrt{\sigma^2 + \varepsilon}})",
                  .backward = {{"x",
                                "dx = rstd * (dnorm - mean(dnorm) - norm * mean(dnorm * norm)), dnorm = grad * "
                                "weight, means over the row",
                                R"(\bar{x} = \frac{1}{\sqrt{\sigma^2 + \varepsilon}} \left(\bar{\hat{x}} - )"
                                R"(\operatorname{mean}(\bar{\hat{x}}) - \hat{x} \odot )"
                                R"(\operatorname{mean}(\bar{\hat{x}} \odot \hat{x})\right),\quad \bar{\hat{x}} = )"
                                R"(\overline{\mathrm{out}} \odot w)"},
                               {"weight",
                                "dweight = sum over rows of grad * norm",
                                R"(\bar{w} = \sum_{\text{rows}} \overline{\mathrm{out}} \odot \hat{x})"},
                               {"bias",
                                "dbias = sum over rows of grad",
                                R"(\bar{b} = \sum_{\text{rows}} \overline{\mathrm{out}})"}}},
          .inputs = [] {
            return std::vector<Tensor>{case_input({2, 3, 4}, 1), case_input({4}, 2), case_input({4}, 3)};
          },
          .fn = [](const std::vector<Tensor>& in) { return layer_norm(in[0], {4}, in[1], in[2]); }};
}
