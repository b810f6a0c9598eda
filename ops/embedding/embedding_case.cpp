#include "core/factories.h"

#include "ops/embedding/embedding.h"
#include "ops/op_registry.h"

TG_OP_CASE(embedding) {
  return {.inputs = [] { return std::vector<Tensor>{case_input({5, 3}, 1)}; },
          .fn = [](const std::vector<Tensor>& in) {
            return embedding(tensor_i64({2, 0, 2, 4, 1, 2}, {2, 3}, in[0].device()), in[0]);
          }};
}
