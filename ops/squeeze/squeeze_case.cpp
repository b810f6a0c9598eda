#include "ops/op_registry.h"
#include "ops/squeeze/squeeze.h"

TG_OP_CASE(squeeze) {
  return {.inputs = [] { return std::vector<Tensor>{case_input({2, 1, 3}, 1)}; },
          .fn = [](const std::vector<Tensor>& in) { return squeeze(in[0], 1); }};
}
