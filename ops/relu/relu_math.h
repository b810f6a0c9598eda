#pragma once
// relu's element formulas (relu.h has the math), shared by relu_cpu.cpp and relu_cuda.cu.
#include "core/cuda/host_device.h"

namespace tg::relu_math {

// out = max(x, 0), NaN kept
// !(x <= 0) keeps NaN with one compare (no short-circuit ||), so the CPU loop vectorises.
template <class T> TG_HOST_DEVICE T forward(T x) { return !(x <= 0) ? x : T(0); }

// dx = g where x > 0, else 0
template <class T> TG_HOST_DEVICE T backward(T g, T x) { return x > 0 ? g : T(0); }

}  // namespace tg::relu_math
