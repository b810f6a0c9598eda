#include "ops/op_registry.h"
#include "ops/permute/permute.h"

TG_OP_CASE(permute) {
  return {.inputs = [] { return std::vector<Tensor>{case_input({2, 3, 4}, 1)}; },
          .fn = [](const std::vector<Tensor>& in) { return permute(in[0], {2, 0, 1}); }};
}
