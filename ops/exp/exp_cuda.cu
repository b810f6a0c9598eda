#include "ops/common/elementwise_cuda.cuh"
#include "ops/exp/exp.h"
#include "ops/exp/exp_math.h"

namespace tg {

// inp (...) -> out (...)
void exp_forward_cuda(const Tensor& out, const Tensor& inp) {
  unary_kernel_cuda(out, inp, "exp", [] __device__(auto x) { return exp_math::forward(x); });
}

// dout (...), out (...) -> dinp (...)
void exp_backward_cuda(const Tensor& dinp, const Tensor& dout, const Tensor& out) {
  binary_kernel_cuda(dinp, dout, out, "exp", [] __device__(auto g, auto s) { return exp_math::backward(g, s); });
}

}  // namespace tg
