#include "ops/common/elementwise_cuda.cuh"
#include "ops/gelu/gelu.h"
#include "ops/gelu/gelu_math.h"

namespace tg {

// inp (...) -> out (...)
void gelu_forward_cuda(const Tensor& out, const Tensor& inp, GeluApprox approx) {
  if (approx == GeluApprox::tanh)
    unary_kernel_cuda(out, inp, "gelu", [] __device__(auto x) { return gelu_math::tanh_forward(x); });
  else
    unary_kernel_cuda(out, inp, "gelu", [] __device__(auto x) { return gelu_math::erf_forward(x); });
}

// dout (...), inp (...) -> dinp (...)
void gelu_backward_cuda(const Tensor& dinp, const Tensor& dout, const Tensor& inp, GeluApprox approx) {
  if (approx == GeluApprox::tanh)
    binary_kernel_cuda(dinp, dout, inp, "gelu",
                       [] __device__(auto g, auto x) { return gelu_math::tanh_backward(g, x); });
  else
    binary_kernel_cuda(dinp, dout, inp, "gelu",
                       [] __device__(auto g, auto x) { return gelu_math::erf_backward(g, x); });
}

}  // namespace tg
