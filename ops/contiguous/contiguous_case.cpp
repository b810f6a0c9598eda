#include "ops/contiguous/contiguous.h"
#include "ops/op_registry.h"

TG_OP_CASE(contiguous) {
  return {.inputs = [] { return std::vector<Tensor>{noncontiguous_case_input({2, 3}, 1)}; },
          .fn = [](const std::vector<Tensor>& in) { return contiguous(in[0]); }};
}
