#include <cmath>

#include "ops/common/elementwise_cuda.cuh"
#include "ops/relu/relu.h"

namespace tg {

// inp (...) -> out (...)
void relu_forward_cuda(const Tensor& out, const Tensor& inp) {
  unary_kernel_cuda(out, inp, "relu",
                    [] __device__(auto v) { return v > 0 || std::isnan(v) ? v : decltype(v)(0); });
}

// dout (...), inp (...) -> dinp (...)
void relu_backward_cuda(const Tensor& dinp, const Tensor& dout, const Tensor& inp) {
  binary_kernel_cuda(dinp, dout, inp, "relu",
                     [] __device__(auto g, auto v) { return v > 0 ? g : decltype(g)(0); });
}

}  // namespace tg
