#include "ops/op_registry.h"
#include "ops/tanh/tanh.h"

TG_OP_CASE(tanh) {
  return unary_case([](const Tensor& x) { return tanh(x); });
}
