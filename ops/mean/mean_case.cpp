#include "ops/mean/mean.h"
#include "ops/op_registry.h"

TG_OP_CASE(mean) {
  return {.inputs = [] { return std::vector<Tensor>{case_input({2, 3, 4}, 1)}; },
          .fn = [](const std::vector<Tensor>& in) { return mean(in[0], {1}); }};
}
