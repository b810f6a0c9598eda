#pragma once
// clone: a new contiguous tensor with x's values (its own storage, even when x is contiguous).
//   x (...) -> out (...) contiguous
// Forward formula and backward rule per input: TG_OP_DOC in ops/clone/clone.cpp (docs/ops.md).
#include "core/tensor.h"

namespace tg {

Tensor clone(const Tensor& x);

}  // namespace tg
