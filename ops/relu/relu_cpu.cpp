#include "ops/common/elementwise_cpu.h"
#include "ops/relu/relu.h"
#include "ops/relu/relu_math.h"

namespace tg {

// inp (...) -> out (...)
void relu_forward_cpu(const Tensor& out, const Tensor& inp) {
  unary_kernel_cpu(out, inp, "relu", [](auto x) { return relu_math::forward(x); });
}

// dout (...), inp (...) -> dinp (...)
void relu_backward_cpu(const Tensor& dinp, const Tensor& dout, const Tensor& inp) {
  binary_kernel_cpu(dinp, dout, inp, "relu", [](auto g, auto s) { return relu_math::backward(g, s); });
}

}  // namespace tg
