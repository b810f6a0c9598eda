#include "ops/op_registry.h"
#include "ops/softmax/softmax.h"

TG_OP_CASE(softmax) {
  return unary_case({.summary = "exponentials normalised to sum to 1 along one dim",
                     .forward_text = "out_j = e^(x_j - m) / sum_k e^(x_k - m), m = max_k x_k",
                     .forward_tex = R"(\mathrm{out}_j = \frac{e^{x_j - m}}{\sum_k e^{x_k - m}},\quad m = \max_k x_k)",
                     .backward = {{"x",
                                   "dx_i = out_i * (grad_i - sum_k grad_k out_k)",
                                   R"(\bar{x}_i = \mathrm{out}_i \left(\overline{\mathrm{out}}_i - \sum_k )"
                                   R"(\overline{\mathrm{out}}_k\, \mathrm{out}_k\right))"}}},
                    [](const Tensor& x) { return softmax(x, -1); });
}
