#include "ops/add/add.h"
#include "ops/op_registry.h"

TG_OP_CASE(add) {
  return binary_case([](const Tensor& a, const Tensor& b) { return add(a, b); });
}
