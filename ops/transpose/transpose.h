#pragma once
// transpose: a view of x with dims dim0 and dim1 swapped (no copy; their sizes and strides swap).
//   x (..., a, ..., b, ...) -> out (..., b, ..., a, ...)       dims may be negative
// Backward:
//   dx = transpose(grad, dim0, dim1)
#include "core/tensor.h"

namespace tg {

Tensor transpose(const Tensor& x, int64_t dim0, int64_t dim1);

}  // namespace tg
