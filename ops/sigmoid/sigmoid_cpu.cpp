#include <cmath>

#include "ops/common/elementwise_cpu.h"
#include "ops/sigmoid/sigmoid.h"

namespace tg {

// inp (...) -> out (...)
void sigmoid_forward_cpu(const Tensor& out, const Tensor& inp) {
  // Two forms so that e^(-x) never overflows: for x < 0 use e^x / (1 + e^x).
  unary_kernel_cpu(out, inp, "sigmoid", [](auto v) {
    using T = decltype(v);
    if (v >= 0) return T(1) / (T(1) + std::exp(-v));
    T e = std::exp(v);
    return e / (T(1) + e);
  });
}

// dout (...), out (...) -> dinp (...)
void sigmoid_backward_cpu(const Tensor& dinp, const Tensor& dout, const Tensor& out) {
  binary_kernel_cpu(dinp, dout, out, "sigmoid", [](auto g, auto y) { return g * y * (1 - y); });
}

}  // namespace tg
