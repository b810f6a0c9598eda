#include "core/rng.h"

#include "ops/fused/dropout_add/dropout_add.h"
#include "ops/op_registry.h"

TG_OP_CASE(dropout_add) {
  return {.inputs = [] { return std::vector<Tensor>{case_input({3, 4}, 1), case_input({3, 4}, 2)}; },
          .fn = [](const std::vector<Tensor>& in) {
            Generator gen(7);  // the same mask at every evaluation
            return dropout_add(in[0], in[1], 0.4, true, gen);
          }};
}
