#include "ops/op_registry.h"
#include "ops/sigmoid/sigmoid.h"

TG_OP_CASE(sigmoid) {
  return unary_case([](const Tensor& x) { return sigmoid(x); });
}
