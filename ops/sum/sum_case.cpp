#include "ops/op_registry.h"
#include "ops/sum/sum.h"

TG_OP_CASE(sum) {
  return {.inputs = [] { return std::vector<Tensor>{case_input({2, 3}, 1)}; },
          .fn = [](const std::vector<Tensor>& in) { return sum(in[0], {0}); }};
}
