#include "ops/op_registry.h"
#include "ops/to/to.h"

TG_OP_CASE(to) {
  // float32 rounds by 6e-8 (relative): a larger step keeps the differences clean
  return {.inputs = [] { return std::vector<Tensor>{case_input({2, 3}, 1)}; },
          .fn = [](const std::vector<Tensor>& in) { return to(to(in[0], kF32), kF64); },
          .options = {.eps = 1e-2}};
}
