#include "ops/op_registry.h"
#include "ops/pow/pow.h"

TG_OP_CASE(pow) {
  return unary_case([](const Tensor& x) { return pow(x, 3); }, 0.5, 2);
}
