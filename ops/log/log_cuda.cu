#include "ops/common/elementwise_cuda.cuh"
#include "ops/log/log.h"
#include "ops/log/log_math.h"

namespace tg {

// inp (...) -> out (...)
void log_forward_cuda(const Tensor& out, const Tensor& inp) {
  unary_kernel_cuda(out, inp, "log", [] __device__(auto x) { return log_math::forward(x); });
}

// dout (...), inp (...) -> dinp (...)
void log_backward_cuda(const Tensor& dinp, const Tensor& dout, const Tensor& inp) {
  binary_kernel_cuda(dinp, dout, inp, "log", [] __device__(auto g, auto s) { return log_math::backward(g, s); });
}

}  // namespace tg
