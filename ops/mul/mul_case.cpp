#include "ops/mul/mul.h"
#include "ops/op_registry.h"

TG_OP_CASE(mul) {
  return binary_case([](const Tensor& a, const Tensor& b) { return mul(a, b); });
}
