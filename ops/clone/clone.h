#pragma once
// clone: a new contiguous tensor with x's values (its own storage, even when x is contiguous).
//   x (...) -> out (...) contiguous
// Forward formula and backward rule per input: the op's record, ops/clone/clone_case.cpp (docs/ops.md).
#include "core/tensor.h"

namespace tg {

Tensor clone(const Tensor& x);

}  // namespace tg
