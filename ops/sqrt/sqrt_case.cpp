#include "ops/op_registry.h"
#include "ops/sqrt/sqrt.h"

TG_OP_CASE(sqrt) {
  return unary_case([](const Tensor& x) { return sqrt(x); }, 0.5, 2);
}
