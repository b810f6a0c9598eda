#include "ops/gelu/gelu.h"
#include "ops/op_registry.h"

TG_OP_CASE(gelu) {
  return unary_case("out = x Phi(x), Phi the standard normal CDF", [](const Tensor& x) { return gelu(x); });
}
