#include "ops/clone/clone.h"
#include "ops/op_registry.h"

TG_OP_CASE(clone) {
  return unary_case("a contiguous copy of x in its own storage", [](const Tensor& x) { return clone(x); });
}
