#include "core/factories.h"

#include "ops/fused/embedding_add_positions/embedding_add_positions.h"
#include "ops/op_registry.h"

TG_OP_CASE(embedding_add_positions) {
  // weight (5, 3) and positions (4, 3) differentiable; indices (2, 3) a constant, index 1 repeated
  return {.inputs = [] { return std::vector<Tensor>{case_input({5, 3}, 1), case_input({4, 3}, 2)}; },
          .fn = [](const std::vector<Tensor>& in) {
            return embedding_add_positions(tensor_i64({1, 4, 1, 0, 2, 1}, {2, 3}, in[0].device()), in[0], in[1]);
          }};
}
