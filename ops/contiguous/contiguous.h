#pragma once
// contiguous: x itself when already contiguous, else a row-major copy.
//   x (...) -> out (...) contiguous
// Forward formula and backward rule per input: the op's record, ops/contiguous/contiguous_case.cpp (docs/ops.md).
#include "core/tensor.h"

namespace tg {

Tensor contiguous(const Tensor& x);

}  // namespace tg
