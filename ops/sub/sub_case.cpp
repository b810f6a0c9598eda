#include "ops/op_registry.h"
#include "ops/sub/sub.h"

TG_OP_CASE(sub) {
  return binary_case([](const Tensor& a, const Tensor& b) { return sub(a, b); });
}
