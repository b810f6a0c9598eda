#include "ops/common/elementwise_cpu.h"
#include "ops/tanh/tanh.h"
#include "ops/tanh/tanh_math.h"

namespace tg {

// inp (...) -> out (...)
void tanh_forward_cpu(const Tensor& out, const Tensor& inp) {
  unary_kernel_cpu(out, inp, "tanh", [](auto x) { return tanh_math::forward(x); });
}

// dout (...), out (...) -> dinp (...)
void tanh_backward_cpu(const Tensor& dinp, const Tensor& dout, const Tensor& out) {
  binary_kernel_cpu(dinp, dout, out, "tanh", [](auto g, auto s) { return tanh_math::backward(g, s); });
}

}  // namespace tg
