#include "core/rng.h"

#include "ops/fused/relu_dropout/relu_dropout.h"
#include "ops/op_registry.h"

TG_OP_CASE(relu_dropout) {
  return {.inputs = [] { return std::vector<Tensor>{case_input({3, 4}, 1)}; },
          .fn = [](const std::vector<Tensor>& in) {
            Generator gen(7);  // the same mask at every evaluation
            return relu_dropout(in[0], 0.4, true, gen);
          }};
}
