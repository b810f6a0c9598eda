#include "ops/matmul/matmul.h"
#include "ops/op_registry.h"

TG_OP_CASE(matmul) {
  return {.inputs = [] { return std::vector<Tensor>{case_input({2, 3, 4}, 1), case_input({4, 2}, 2)}; },
          .fn = [](const std::vector<Tensor>& in) { return matmul(in[0], in[1]); }};
}
