#include "ops/op_registry.h"
#include "ops/transpose/transpose.h"

TG_OP_CASE(transpose) {
  return {.inputs = [] { return std::vector<Tensor>{case_input({2, 3}, 1)}; },
          .fn = [](const std::vector<Tensor>& in) { return transpose(in[0], 0, 1); }};
}
