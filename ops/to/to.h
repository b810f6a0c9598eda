#pragma once
// to: x converted to another dtype or moved to another device (a new contiguous tensor), or
// x itself when it already has that dtype / is already on that device.
//   x (...) dtype a, device p -> out (...) dtype b (or device q)
// Forward formula and backward rule per input: TG_OP_DOC in ops/to/to.cpp (docs/ops.md).
// Only a floating result carries a gradient (not an int64 or bool one).
#include "core/tensor.h"

namespace tg {

Tensor to(const Tensor& x, DType dtype);
Tensor to(const Tensor& x, Device device);

}  // namespace tg
