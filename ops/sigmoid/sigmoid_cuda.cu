#include "ops/common/elementwise_cuda.cuh"
#include "ops/sigmoid/sigmoid.h"
#include "ops/sigmoid/sigmoid_math.h"

namespace tg {

// inp (...) -> out (...)
void sigmoid_forward_cuda(const Tensor& out, const Tensor& inp) {
  unary_kernel_cuda(out, inp, "sigmoid", [] __device__(auto x) { return sigmoid_math::forward(x); });
}

// dout (...), out (...) -> dinp (...)
void sigmoid_backward_cuda(const Tensor& dinp, const Tensor& dout, const Tensor& out) {
  binary_kernel_cuda(dinp, dout, out, "sigmoid",
                     [] __device__(auto g, auto s) { return sigmoid_math::backward(g, s); });
}

}  // namespace tg
