#include "ops/exp/exp.h"
#include "ops/op_registry.h"

TG_OP_CASE(exp) {
  return unary_case([](const Tensor& x) { return exp(x); });
}
