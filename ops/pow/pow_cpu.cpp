#include <cmath>

#include "ops/common/elementwise_cpu.h"
#include "ops/pow/pow.h"

namespace tg {

// x (...) -> out (...)
void pow_forward_cpu(const Tensor& out, const Tensor& x, double p) {
  unary_kernel_cpu(out, x, "pow", [p](auto v) { return std::pow(v, static_cast<decltype(v)>(p)); });
}

// dout (...), inp (...) -> dinp (...)
void pow_backward_cpu(const Tensor& dinp, const Tensor& dout, const Tensor& inp, double p) {
  binary_kernel_cpu(dinp, dout, inp, "pow", [p](auto g, auto v) {
    using T = decltype(v);
    if (p == 0) return T(0);  // x^0 is constant (p * x^-1 would be NaN at x == 0)
    return g * static_cast<T>(p) * std::pow(v, static_cast<T>(p - 1));
  });
}

}  // namespace tg
