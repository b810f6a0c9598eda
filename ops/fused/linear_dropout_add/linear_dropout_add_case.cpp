#include "core/rng.h"

#include "ops/fused/linear_dropout_add/linear_dropout_add.h"
#include "ops/op_registry.h"

TG_OP_CASE(linear_dropout_add) {
  return {.inputs = [] {
            return std::vector<Tensor>{case_input({2, 3, 4}, 1), case_input({5, 4}, 2), case_input({5}, 3),
                                       case_input({2, 3, 5}, 4)};
          },
          .fn = [](const std::vector<Tensor>& in) {
            Generator gen(7);  // the same mask at every evaluation
            return linear_dropout_add(in[0], in[1], in[2], in[3], 0.4, true, gen);
          }};
}
