#include "ops/add/add.h"
#include "ops/op_registry.h"
#include "ops/split/split.h"

TG_OP_CASE(split) {
  return {.inputs = [] { return std::vector<Tensor>{case_input({5, 2}, 1)}; },
          .fn = [](const std::vector<Tensor>& in) {
            auto pieces = split(in[0], 2, 0);
            return add(pieces[0], pieces[1]);
          }};
}
