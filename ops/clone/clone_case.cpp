#include "ops/clone/clone.h"
#include "ops/op_registry.h"

TG_OP_CASE(clone) {
  return unary_case([](const Tensor& x) { return clone(x); });
}
