#include "ops/common/elementwise_cpu.h"
#include "ops/sqrt/sqrt.h"
#include "ops/sqrt/sqrt_math.h"

namespace tg {

// inp (...) -> out (...)
void sqrt_forward_cpu(const Tensor& out, const Tensor& inp) {
  unary_kernel_cpu(out, inp, "sqrt", [](auto x) { return sqrt_math::forward(x); });
}

// dout (...), out (...) -> dinp (...)
void sqrt_backward_cpu(const Tensor& dinp, const Tensor& dout, const Tensor& out) {
  binary_kernel_cpu(dinp, dout, out, "sqrt", [](auto g, auto s) { return sqrt_math::backward(g, s); });
}

}  // namespace tg
