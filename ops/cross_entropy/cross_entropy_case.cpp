#include "core/factories.h"

#include "ops/cross_entropy/cross_entropy.h"
#include "ops/op_registry.h"

TG_OP_CASE(cross_entropy) {
  return {.inputs = [] { return std::vector<Tensor>{case_input({4, 5}, 1, -2, 2)}; },
          .fn = [](const std::vector<Tensor>& in) {
            return cross_entropy(in[0], tensor_i64({3, -100, 0, 4}, {4}, in[0].device()));
          }};
}
