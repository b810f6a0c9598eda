#include "ops/op_registry.h"
#include "ops/pow/pow.h"

TG_OP_CASE(pow) {
  return unary_case("out = x^p for a scalar p", [](const Tensor& x) { return pow(x, 3); }, 0.5, 2);
}
