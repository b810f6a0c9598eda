#pragma once
// sigmoid's element formula, shared by sigmoid_cpu.cpp and sigmoid_cuda.cu.
#include <cmath>

#include "core/cuda/host_device.h"

namespace tg {

// 1 / (1 + e^-x), in two forms so that e^(-x) never overflows: for x < 0, e^x / (1 + e^x).
template <class T> TG_HOST_DEVICE T sigmoid_of(T x) {
  if (x >= 0) return T(1) / (T(1) + std::exp(-x));
  T e = std::exp(x);
  return e / (T(1) + e);
}

}  // namespace tg
