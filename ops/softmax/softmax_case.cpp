#include "ops/op_registry.h"
#include "ops/softmax/softmax.h"

TG_OP_CASE(softmax) {
  return unary_case("exponentials normalised to sum to 1 along one dim",
                    [](const Tensor& x) { return softmax(x, -1); });
}
