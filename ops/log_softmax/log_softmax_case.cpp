#include "ops/log_softmax/log_softmax.h"
#include "ops/op_registry.h"

TG_OP_CASE(log_softmax) {
  return unary_case([](const Tensor& x) { return log_softmax(x, -1); });
}
