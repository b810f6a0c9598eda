#include "ops/op_registry.h"
#include "ops/softmax/softmax.h"

TG_OP_CASE(softmax) {
  return unary_case([](const Tensor& x) { return softmax(x, -1); });
}
