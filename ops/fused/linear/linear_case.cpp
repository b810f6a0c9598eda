#include "ops/fused/linear/linear.h"
#include "ops/op_registry.h"

TG_OP_CASE(linear) {
  return {.inputs = [] {
            return std::vector<Tensor>{case_input({2, 3, 4}, 1), case_input({5, 4}, 2), case_input({5}, 3)};
          },
          .fn = [](const std::vector<Tensor>& in) { return linear(in[0], in[1], in[2]); }};
}
