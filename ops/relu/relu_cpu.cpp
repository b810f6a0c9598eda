#include "ops/common/elementwise_cpu.h"
#include "ops/relu/relu.h"

namespace tg {

// inp (...) -> out (...)
void relu_forward_cpu(const Tensor& out, const Tensor& inp) {
  // !(v <= 0) keeps NaN with one compare (no short-circuit ||), so the loop vectorises
  unary_kernel_cpu(out, inp, "relu", [](auto v) { return !(v <= 0) ? v : decltype(v)(0); });
}

// dout (...), inp (...) -> dinp (...)
void relu_backward_cpu(const Tensor& dinp, const Tensor& dout, const Tensor& inp) {
  binary_kernel_cpu(dinp, dout, inp, "relu", [](auto g, auto v) { return v > 0 ? g : decltype(g)(0); });
}

}  // namespace tg
