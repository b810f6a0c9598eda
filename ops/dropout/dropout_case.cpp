#include "core/rng.h"

#include "ops/dropout/dropout.h"
#include "ops/op_registry.h"

TG_OP_CASE(dropout) {
  return {.inputs = [] { return std::vector<Tensor>{case_input({3, 4}, 1)}; },
          .fn = [](const std::vector<Tensor>& in) {
            Generator gen(7);  // the same mask at every evaluation
            return dropout(in[0], 0.4, true, gen);
          }};
}
