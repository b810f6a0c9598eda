#include "ops/common/elementwise_cuda.cuh"
#include "ops/relu/relu.h"
#include "ops/relu/relu_math.h"

namespace tg {

// inp (...) -> out (...)
void relu_forward_cuda(const Tensor& out, const Tensor& inp) {
  unary_kernel_cuda(out, inp, "relu", [] __device__(auto x) { return relu_math::forward(x); });
}

// dout (...), inp (...) -> dinp (...)
void relu_backward_cuda(const Tensor& dinp, const Tensor& dout, const Tensor& inp) {
  binary_kernel_cuda(dinp, dout, inp, "relu", [] __device__(auto g, auto s) { return relu_math::backward(g, s); });
}

}  // namespace tg
