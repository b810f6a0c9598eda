#include "ops/op_registry.h"
#include "ops/reshape/reshape.h"

TG_OP_CASE(reshape) {
  return {.inputs = [] { return std::vector<Tensor>{case_input({2, 3}, 1)}; },
          .fn = [](const std::vector<Tensor>& in) { return reshape(in[0], {3, 2}); },
          .tape_aliases = {"view"}};
}
