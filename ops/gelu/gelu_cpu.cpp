#include <cmath>
#include <numbers>

#include "ops/common/elementwise_cpu.h"
#include "ops/gelu/gelu.h"

namespace tg {

namespace {
template <class T> constexpr T kInvSqrt2 = std::numbers::sqrt2_v<T> / 2;                          // 1/sqrt(2)
template <class T> constexpr T kInvSqrt2Pi = std::numbers::inv_sqrtpi_v<T> / std::numbers::sqrt2_v<T>;  // 1/sqrt(2 pi)
template <class T> constexpr T kSqrt2OverPi = std::numbers::sqrt2_v<T> * std::numbers::inv_sqrtpi_v<T>;  // sqrt(2/pi)
template <class T> constexpr T kCubic = T(0.044715);
}  // namespace

// inp (...) -> out (...)
void gelu_forward_cpu(const Tensor& out, const Tensor& inp, GeluApprox approx) {
  if (approx == GeluApprox::tanh)
    unary_kernel_cpu(out, inp, "gelu", [](auto x) {
      using T = decltype(x);
      T t = std::tanh(kSqrt2OverPi<T> * (x + kCubic<T> * x * x * x));
      return T(0.5) * x * (1 + t);
    });
  else
    unary_kernel_cpu(out, inp, "gelu", [](auto x) {
      using T = decltype(x);
      return T(0.5) * x * (1 + std::erf(x * kInvSqrt2<T>));
    });
}

// dout (...), inp (...) -> dinp (...)
void gelu_backward_cpu(const Tensor& dinp, const Tensor& dout, const Tensor& inp, GeluApprox approx) {
  if (approx == GeluApprox::tanh)
    binary_kernel_cpu(dinp, dout, inp, "gelu", [](auto g, auto x) {
      using T = decltype(x);
      T t = std::tanh(kSqrt2OverPi<T> * (x + kCubic<T> * x * x * x));
      T du_dx = kSqrt2OverPi<T> * (1 + 3 * kCubic<T> * x * x);
      return g * (T(0.5) * (1 + t) + T(0.5) * x * (1 - t * t) * du_dx);
    });
  else
    binary_kernel_cpu(dinp, dout, inp, "gelu", [](auto g, auto x) {
      using T = decltype(x);
      T cdf = T(0.5) * (1 + std::erf(x * kInvSqrt2<T>));     // Phi(x)
      T pdf = kInvSqrt2Pi<T> * std::exp(T(-0.5) * x * x);   // phi(x)
      return g * (cdf + x * pdf);
    });
}

}  // namespace tg
