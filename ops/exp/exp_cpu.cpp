#include "ops/common/elementwise_cpu.h"
#include "ops/exp/exp.h"
#include "ops/exp/exp_math.h"

namespace tg {

// inp (...) -> out (...)
void exp_forward_cpu(const Tensor& out, const Tensor& inp) {
  unary_kernel_cpu(out, inp, "exp", [](auto x) { return exp_math::forward(x); });
}

// dout (...), out (...) -> dinp (...)
void exp_backward_cpu(const Tensor& dinp, const Tensor& dout, const Tensor& out) {
  binary_kernel_cpu(dinp, dout, out, "exp", [](auto g, auto s) { return exp_math::backward(g, s); });
}

}  // namespace tg
