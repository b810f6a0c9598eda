#include "ops/fused/linear_relu/linear_relu.h"
#include "ops/op_registry.h"

TG_OP_CASE(linear_relu) {
  return {.inputs = [] {
            return std::vector<Tensor>{case_input({2, 3, 4}, 1), case_input({5, 4}, 2), case_input({5}, 3)};
          },
          .fn = [](const std::vector<Tensor>& in) { return linear_relu(in[0], in[1], in[2]); }};
}
