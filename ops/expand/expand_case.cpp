#include "ops/expand/expand.h"
#include "ops/op_registry.h"

TG_OP_CASE(expand) {
  return {.inputs = [] { return std::vector<Tensor>{case_input({3, 1}, 1)}; },
          .fn = [](const std::vector<Tensor>& in) { return expand(in[0], {3, 4}); }};
}
