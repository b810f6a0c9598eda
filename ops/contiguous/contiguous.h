#pragma once
// contiguous: x itself when already contiguous, else a row-major copy.
//   x (...) -> out (...) contiguous
// Backward:
//   dx = grad
#include "core/tensor.h"

namespace tg {

Tensor contiguous(const Tensor& x);

}  // namespace tg
