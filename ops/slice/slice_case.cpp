#include "ops/op_registry.h"
#include "ops/slice/slice.h"

TG_OP_CASE(slice) {
  return {.inputs = [] { return std::vector<Tensor>{case_input({4, 3}, 1)}; },
          .fn = [](const std::vector<Tensor>& in) { return slice(in[0], 0, 1, 3); }};
}
