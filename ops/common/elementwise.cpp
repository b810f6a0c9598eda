#include "ops/common/elementwise.h"

#include <string>

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

void check_cpu_only(const Tensor& x, const char* op, const char* arg) {
  check_defined(x, op, arg);
  if (x.is_cuda())
    throw Error(op, std::string("no CUDA kernel yet; ") + arg + " " + x.describe() + " is on " + x.device().str());
}

Tensor scalar_like(const Tensor& x, double value) {
  check_defined(x, "scalar", "x");
  return full({}, value, x.dtype(), x.device());
}

}  // namespace tg
