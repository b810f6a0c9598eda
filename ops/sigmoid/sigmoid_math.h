#pragma once
// sigmoid's element formulas (sigmoid.h has the math), shared by sigmoid_cpu.cpp and sigmoid_cuda.cu.
#include <cmath>

#include "core/cuda/host_device.h"

namespace tg::sigmoid_math {

// out = 1 / (1 + e^-x), in two forms so that e^(-x) never overflows: for x < 0, e^x / (1 + e^x).
template <class T> TG_HOST_DEVICE T forward(T x) {
  if (x >= 0) return T(1) / (T(1) + std::exp(-x));
  T e = std::exp(x);
  return e / (T(1) + e);
}

// dx = g * out * (1 - out)
template <class T> TG_HOST_DEVICE T backward(T g, T out) { return g * out * (1 - out); }

}  // namespace tg::sigmoid_math
