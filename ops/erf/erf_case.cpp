#include "ops/erf/erf.h"
#include "ops/op_registry.h"

TG_OP_CASE(erf) {
  return unary_case([](const Tensor& x) { return erf(x); }, -2, 2);
}
