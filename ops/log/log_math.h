#pragma once
// log's element formulas (log.h has the math), shared by log_cpu.cpp and log_cuda.cu.
#include <cmath>

#include "core/cuda/host_device.h"

namespace tg::log_math {

// out = ln(x)
template <class T> TG_HOST_DEVICE T forward(T x) { return std::log(x); }

// dx = g / x
template <class T> TG_HOST_DEVICE T backward(T g, T x) { return g / x; }

}  // namespace tg::log_math
