#pragma once
// gelu's element formulas (gelu.h has the math), shared by gelu_cpu.cpp and gelu_cuda.cu.
#include <cmath>
#include <numbers>

#include "core/cuda/host_device.h"

namespace tg::gelu_math {

// 1/sqrt(2), 1/sqrt(2 pi), sqrt(2/pi) and the cubic coefficient of the tanh form
template <class T> constexpr T kInvSqrt2 = std::numbers::sqrt2_v<T> / 2;
template <class T> constexpr T kInvSqrt2Pi = std::numbers::inv_sqrtpi_v<T> / std::numbers::sqrt2_v<T>;
template <class T> constexpr T kSqrt2OverPi = std::numbers::sqrt2_v<T> * std::numbers::inv_sqrtpi_v<T>;
template <class T> constexpr T kCubic = T(0.044715);

// The erf and exp the erf form calls: libm's, unless a caller passes its own (the CPU's float32
// fast path passes the vectorisable ones of ops/common/vec_math.h).
struct Libm {
  template <class T> TG_HOST_DEVICE static T erf(T x) { return std::erf(x); }
  template <class T> TG_HOST_DEVICE static T exp(T x) { return std::exp(x); }
};

// out = 0.5 x (1 + erf(x / sqrt(2)))
template <class T, class M = Libm> TG_HOST_DEVICE T erf_forward(T x) {
  return T(0.5) * x * (1 + M::erf(x * kInvSqrt2<T>));
}

// dx = g (Phi(x) + x phi(x))
template <class T, class M = Libm> TG_HOST_DEVICE T erf_backward(T g, T x) {
  T cdf = T(0.5) * (1 + M::erf(x * kInvSqrt2<T>));    // Phi(x)
  T pdf = kInvSqrt2Pi<T> * M::exp(T(-0.5) * x * x);  // phi(x)
  return g * (cdf + x * pdf);
}

// out = 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))
template <class T> TG_HOST_DEVICE T tanh_forward(T x) {
  T t = std::tanh(kSqrt2OverPi<T> * (x + kCubic<T> * x * x * x));
  return T(0.5) * x * (1 + t);
}

// dx = g (0.5 (1 + t) + 0.5 x (1 - t^2) du/dx)
template <class T> TG_HOST_DEVICE T tanh_backward(T g, T x) {
  T t = std::tanh(kSqrt2OverPi<T> * (x + kCubic<T> * x * x * x));
  T du_dx = kSqrt2OverPi<T> * (1 + 3 * kCubic<T> * x * x);
  return g * (T(0.5) * (1 + t) + T(0.5) * x * (1 - t * t) * du_dx);
}

}  // namespace tg::gelu_math
