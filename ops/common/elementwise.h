#pragma once
// Shared by the elementwise op folders: argument checks and output allocation.
#include "core/tensor.h"

namespace tg {

// Checks a and b (defined, floating, same dtype and device) and returns an uninitialised
// output of their broadcast shape. Errors name `op` and both shapes.
Tensor binary_output(const Tensor& a, const Tensor& b, const char* op);
// Checks x (defined, floating) and returns an uninitialised contiguous output like it.
Tensor unary_output(const Tensor& x, const char* op);
// A 0-d tensor holding `value` in x's dtype and device (the scalar forms: x + 2.0).
Tensor scalar_like(const Tensor& x, double value);

}  // namespace tg
