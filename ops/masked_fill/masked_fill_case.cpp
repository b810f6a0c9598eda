#include "core/factories.h"

#include "ops/masked_fill/masked_fill.h"
#include "ops/op_registry.h"

TG_OP_CASE(masked_fill) {
  return {.inputs = [] { return std::vector<Tensor>{case_input({2, 3}, 1)}; },
          .fn = [](const std::vector<Tensor>& in) {
            return masked_fill(in[0], tensor_bool({true, false, true}, {3}, in[0].device()), 0.5);
          }};
}
