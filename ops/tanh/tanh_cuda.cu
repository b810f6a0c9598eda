#include "ops/common/elementwise_cuda.cuh"
#include "ops/tanh/tanh.h"
#include "ops/tanh/tanh_math.h"

namespace tg {

// inp (...) -> out (...)
void tanh_forward_cuda(const Tensor& out, const Tensor& inp) {
  unary_kernel_cuda(out, inp, "tanh", [] __device__(auto x) { return tanh_math::forward(x); });
}

// dout (...), out (...) -> dinp (...)
void tanh_backward_cuda(const Tensor& dinp, const Tensor& dout, const Tensor& out) {
  binary_kernel_cuda(dinp, dout, out, "tanh", [] __device__(auto g, auto s) { return tanh_math::backward(g, s); });
}

}  // namespace tg
