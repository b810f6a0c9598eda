#pragma once
// clone: a new contiguous tensor with x's values (its own storage, even when x is contiguous).
//   x (...) -> out (...) contiguous
// Backward:
//   dx = grad
#include "core/tensor.h"

namespace tg {

Tensor clone(const Tensor& x);

}  // namespace tg
