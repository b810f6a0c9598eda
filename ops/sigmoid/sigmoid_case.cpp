#include "ops/op_registry.h"
#include "ops/sigmoid/sigmoid.h"

TG_OP_CASE(sigmoid) {
  return unary_case("out = 1 / (1 + e^-x)", [](const Tensor& x) { return sigmoid(x); });
}
