#pragma once
// sqrt's element formulas (sqrt.h has the math), shared by sqrt_cpu.cpp and sqrt_cuda.cu.
#include <cmath>

#include "core/cuda/host_device.h"

namespace tg::sqrt_math {

// out = sqrt(x)
template <class T> TG_HOST_DEVICE T forward(T x) { return std::sqrt(x); }

// dx = g / (2 out)
template <class T> TG_HOST_DEVICE T backward(T g, T out) { return g / (2 * out); }

}  // namespace tg::sqrt_math
