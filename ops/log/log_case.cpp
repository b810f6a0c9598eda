#include "ops/log/log.h"
#include "ops/op_registry.h"

TG_OP_CASE(log) {
  return unary_case([](const Tensor& x) { return log(x); }, 0.5, 2);
}
