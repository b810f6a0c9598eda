#include "ops/gelu/gelu.h"
#include "ops/op_registry.h"

TG_OP_CASE(gelu) {
  return unary_case([](const Tensor& x) { return gelu(x); });
}
