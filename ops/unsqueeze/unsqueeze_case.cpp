#include "ops/op_registry.h"
#include "ops/unsqueeze/unsqueeze.h"

TG_OP_CASE(unsqueeze) {
  return {.inputs = [] { return std::vector<Tensor>{case_input({2, 3}, 1)}; },
          .fn = [](const std::vector<Tensor>& in) { return unsqueeze(in[0], 1); }};
}
