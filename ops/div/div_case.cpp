#include "ops/div/div.h"
#include "ops/op_registry.h"

TG_OP_CASE(div) {
  return binary_case([](const Tensor& a, const Tensor& b) { return div(a, b); }, 0.5, 1.5);
}
