#include "ops/log_softmax/log_softmax.h"
#include "ops/op_registry.h"

TG_OP_CASE(log_softmax) {
  return unary_case({.summary = "the log of softmax along one dim",
                     .forward_text = "out_j = x_j - m - log sum_k e^(x_k - m), m = max_k x_k",
                     .forward_tex = R"(\mathrm{out}_j = x_j - m - \log \sum_k e^{x_k - m},\quad m = \max_k x_k)",
                     .backward = {{"x",
                                   "dx_i = grad_i - e^(out_i) * sum_k grad_k",
                                   R"(\bar{x}_i = \overline{\mathrm{out}}_i - e^{\mathrm{out}_i} \sum_k )"
                                   R"(\overline{\mathrm{out}}_k)"}}},
                    [](const Tensor& x) { return log_softmax(x, -1); });
}
