#include "ops/cat/cat.h"
#include "ops/op_registry.h"

TG_OP_CASE(cat) {
  return {.inputs = [] { return std::vector<Tensor>{case_input({2, 3}, 1), case_input({2, 2}, 2)}; },
          .fn = [](const std::vector<Tensor>& in) { return cat({in[0], in[1]}, 1); }};
}
