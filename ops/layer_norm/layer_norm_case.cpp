#include "ops/layer_norm/layer_norm.h"
#include "ops/op_registry.h"

TG_OP_CASE(layer_norm) {
  return {.inputs = [] {
            return std::vector<Tensor>{case_input({2, 3, 4}, 1), case_input({4}, 2), case_input({4}, 3)};
          },
          .fn = [](const std::vector<Tensor>& in) { return layer_norm(in[0], {4}, in[1], in[2]); }};
}
