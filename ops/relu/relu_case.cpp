#include "ops/op_registry.h"
#include "ops/relu/relu.h"

TG_OP_CASE(relu) {
  return unary_case([](const Tensor& x) { return relu(x); });
}
