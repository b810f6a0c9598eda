#pragma once
// exp's element formulas (exp.h has the math), shared by exp_cpu.cpp and exp_cuda.cu.
#include <cmath>

#include "core/cuda/host_device.h"

namespace tg::exp_math {

// out = e^x
template <class T> TG_HOST_DEVICE T forward(T x) { return std::exp(x); }

// dx = g * out
template <class T> TG_HOST_DEVICE T backward(T g, T out) { return g * out; }

}  // namespace tg::exp_math
