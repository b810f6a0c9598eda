#pragma once
// tanh's element formulas (tanh.h has the math), shared by tanh_cpu.cpp and tanh_cuda.cu.
#include <cmath>

#include "core/cuda/host_device.h"

namespace tg::tanh_math {

// out = tanh(x)
template <class T> TG_HOST_DEVICE T forward(T x) { return std::tanh(x); }

// dx = g (1 - out^2)
template <class T> TG_HOST_DEVICE T backward(T g, T out) { return g * (1 - out * out); }

}  // namespace tg::tanh_math
