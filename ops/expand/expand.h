#pragma once
// expand: a broadcast view of x as `shape` (no copy; stride 0 on expanded dims).
//   x (s...) -> out (shape), numpy broadcasting rules; -1 keeps a dim's size
// Forward formula and backward rule per input: TG_OP_DOC in ops/expand/expand.cpp (docs/ops.md).
#include "core/tensor.h"

namespace tg {

Tensor expand(const Tensor& x, Shape shape);

}  // namespace tg
