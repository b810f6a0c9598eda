#pragma once
// transpose: a view of x with dims dim0 and dim1 swapped (no copy; their sizes and strides swap).
//   x (..., a, ..., b, ...) -> out (..., b, ..., a, ...)       dims may be negative
// Forward formula and backward rule per input: TG_OP_DOC in ops/transpose/transpose.cpp (docs/ops.md).
#include "core/tensor.h"

namespace tg {

Tensor transpose(const Tensor& x, int64_t dim0, int64_t dim1);

}  // namespace tg
