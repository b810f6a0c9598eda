#include <cmath>

#include "ops/common/elementwise_cuda.cuh"
#include "ops/pow/pow.h"

namespace tg {

// x (...) -> out (...)
void pow_forward_cuda(const Tensor& out, const Tensor& x, double p) {
  unary_kernel_cuda(out, x, "pow", [p] __device__(auto v) { return std::pow(v, static_cast<decltype(v)>(p)); });
}

// dout (...), inp (...) -> dinp (...)
void pow_backward_cuda(const Tensor& dinp, const Tensor& dout, const Tensor& inp, double p) {
  binary_kernel_cuda(dinp, dout, inp, "pow", [p] __device__(auto g, auto v) {
    using T = decltype(v);
    if (p == 0) return T(0);  // x^0 is constant (p * x^-1 would be NaN at x == 0)
    return g * static_cast<T>(p) * std::pow(v, static_cast<T>(p - 1));
  });
}

}  // namespace tg
