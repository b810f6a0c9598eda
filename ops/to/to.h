#pragma once
// to: x converted to another dtype or moved to another device (a new contiguous tensor), or
// x itself when it already has that dtype / is already on that device.
//   x (...) dtype a, device p -> out (...) dtype b (or device q)
// Backward (only between floating dtypes; an int64/bool result carries no gradient):
//   dx = to(grad, x.dtype)      dx = to(grad, x.device)
#include "core/tensor.h"

namespace tg {

Tensor to(const Tensor& x, DType dtype);
Tensor to(const Tensor& x, Device device);

}  // namespace tg
