#include "ops/common/elementwise_cuda.cuh"
#include "ops/sqrt/sqrt.h"
#include "ops/sqrt/sqrt_math.h"

namespace tg {

// inp (...) -> out (...)
void sqrt_forward_cuda(const Tensor& out, const Tensor& inp) {
  unary_kernel_cuda(out, inp, "sqrt", [] __device__(auto x) { return sqrt_math::forward(x); });
}

// dout (...), out (...) -> dinp (...)
void sqrt_backward_cuda(const Tensor& dinp, const Tensor& dout, const Tensor& out) {
  binary_kernel_cuda(dinp, dout, out, "sqrt", [] __device__(auto g, auto s) { return sqrt_math::backward(g, s); });
}

}  // namespace tg
