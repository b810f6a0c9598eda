#pragma once
// contiguous: x itself when already contiguous, else a row-major copy.
//   x (...) -> out (...) contiguous
// Forward formula and backward rule per input: TG_OP_DOC in ops/contiguous/contiguous.cpp (docs/ops.md).
#include "core/tensor.h"

namespace tg {

Tensor contiguous(const Tensor& x);

}  // namespace tg
