#include "ops/neg/neg.h"
#include "ops/op_registry.h"

TG_OP_CASE(neg) {
  return unary_case([](const Tensor& x) { return neg(x); });
}
