#include <cmath>

#include "ops/common/elementwise_cpu.h"
#include "ops/sqrt/sqrt.h"

namespace tg {

// inp (...) -> out (...)
void sqrt_forward_cpu(const Tensor& out, const Tensor& inp) {
  unary_kernel_cpu(out, inp, "sqrt", [](auto v) { return std::sqrt(v); });
}

// dout (...), out (...) -> dinp (...)
void sqrt_backward_cpu(const Tensor& dinp, const Tensor& dout, const Tensor& out) {
  binary_kernel_cpu(dinp, dout, out, "sqrt", [](auto g, auto y) { return g / (2 * y); });
}

}  // namespace tg
