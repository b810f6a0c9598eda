#include "ops/matmul/matmul.h"
#include "ops/op_registry.h"

TG_OP_CASE(matmul) {
  return {.doc = {.summary = "matrix product with broadcast batch dims (torch.matmul)",
                  .forward_text = "out = a @ b, out[..., i, j] = sum_k a[..., i, k] b[..., k, j] (batch dims "
                                  "broadcast)",
                  .forward_tex = R"(\mathrm{out}_{ij} = \sum_k a_{ik}\, b_{kj})",
                  .backward = {{"a",
                                "da = sum_to(grad @ b^T, a.shape)",
                                R"(\bar{a} = \operatorname{sum\_to}(\overline{\mathrm{out}}\, b^\top))"},
                               {"b",
                                "db = sum_to(a^T @ grad, b.shape)",
                                R"(\bar{b} = \operatorname{sum\_to}(a^\top \overline{\mathrm{out}}))"}}},
          .inputs = [] { return std::vector<Tensor>{case_input({2, 3, 4}, 1), case_input({4, 2}, 2)}; },
          .fn = [](const std::vector<Tensor>& in) { return matmul(in[0], in[1]); }};
}
