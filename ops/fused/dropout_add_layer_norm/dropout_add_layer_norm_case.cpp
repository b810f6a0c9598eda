#include "core/rng.h"

#include "ops/fused/dropout_add_layer_norm/dropout_add_layer_norm.h"
#include "ops/op_registry.h"

TG_OP_CASE(dropout_add_layer_norm) {
  return {.inputs = [] {
            return std::vector<Tensor>{case_input({2, 3, 4}, 1), case_input({2, 3, 4}, 2), case_input({4}, 3),
                                       case_input({4}, 4)};
          },
          .fn = [](const std::vector<Tensor>& in) {
            Generator gen(7);  // the same mask at every evaluation
            return dropout_add_layer_norm(in[0], in[1], 0.4, true, {4}, in[2], in[3], 1e-5, gen);
          }};
}
