#include "ops/common/elementwise_cpu.h"
#include "ops/gelu/gelu.h"
#include "ops/gelu/gelu_math.h"

namespace tg {

// inp (...) -> out (...)
void gelu_forward_cpu(const Tensor& out, const Tensor& inp, GeluApprox approx) {
  if (approx == GeluApprox::tanh)
    unary_kernel_cpu(out, inp, "gelu", [](auto x) { return gelu_math::tanh_forward(x); });
  else
    unary_kernel_cpu(out, inp, "gelu", [](auto x) { return gelu_math::erf_forward(x); });
}

// dout (...), inp (...) -> dinp (...)
void gelu_backward_cpu(const Tensor& dinp, const Tensor& dout, const Tensor& inp, GeluApprox approx) {
  if (approx == GeluApprox::tanh)
    binary_kernel_cpu(dinp, dout, inp, "gelu", [](auto g, auto x) { return gelu_math::tanh_backward(g, x); });
  else
    binary_kernel_cpu(dinp, dout, inp, "gelu", [](auto g, auto x) { return gelu_math::erf_backward(g, x); });
}

}  // namespace tg
