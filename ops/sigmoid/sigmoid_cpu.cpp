#include "ops/common/elementwise_cpu.h"
#include "ops/sigmoid/sigmoid.h"
#include "ops/sigmoid/sigmoid_math.h"

namespace tg {

// inp (...) -> out (...)
void sigmoid_forward_cpu(const Tensor& out, const Tensor& inp) {
  unary_kernel_cpu(out, inp, "sigmoid", [](auto x) { return sigmoid_math::forward(x); });
}

// dout (...), out (...) -> dinp (...)
void sigmoid_backward_cpu(const Tensor& dinp, const Tensor& dout, const Tensor& out) {
  binary_kernel_cpu(dinp, dout, out, "sigmoid", [](auto g, auto s) { return sigmoid_math::backward(g, s); });
}

}  // namespace tg
