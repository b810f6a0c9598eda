#include "ops/common/elementwise_cpu.h"
#include "ops/log/log.h"
#include "ops/log/log_math.h"

namespace tg {

// inp (...) -> out (...)
void log_forward_cpu(const Tensor& out, const Tensor& inp) {
  unary_kernel_cpu(out, inp, "log", [](auto x) { return log_math::forward(x); });
}

// dout (...), inp (...) -> dinp (...)
void log_backward_cpu(const Tensor& dinp, const Tensor& dout, const Tensor& inp) {
  binary_kernel_cpu(dinp, dout, inp, "log", [](auto g, auto s) { return log_math::backward(g, s); });
}

}  // namespace tg
