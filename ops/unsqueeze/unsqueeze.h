#pragma once
// unsqueeze: a view of x with a new size-1 dim inserted at position `dim` (no copy).
//   x (s0, ..., sn-1), dim in -(n+1)..n -> out (s0, ..., 1, ..., sn-1)  (the 1 at `dim`)
// Forward formula and backward rule per input: TG_OP_DOC in ops/unsqueeze/unsqueeze.cpp (docs/ops.md).
#include "core/tensor.h"

namespace tg {

Tensor unsqueeze(const Tensor& x, int64_t dim);

}  // namespace tg
