#include "ops/common/elementwise.h"

#include "core/factories.h"

namespace tg {

Tensor binary_output(const Tensor& a, const Tensor& b, const char* op) {
  check_floating(a, op, "a");
  check_floating(b, op, "b");
  check_same_dtype(a, b, op);
  check_same_device(a, b, op);
  return empty(broadcast_shapes(a.shape(), b.shape(), op), a.dtype(), a.device());
}

Tensor unary_output(const Tensor& x, const char* op) {
  check_floating(x, op, "x");
  return empty_like(x);
}

Tensor scalar_like(const Tensor& x, double value) {
  check_defined(x, "scalar", "x");
  return full({}, value, x.dtype(), x.device());
}

}  // namespace tg
