#pragma once
// Where a tensor stops being finite, for a message that names it: a checkpoint or a weights
// file with a NaN ("\"model.embedding.weight\" holds nan at element 7").
#include <cstdint>

#include "core/tensor.h"

namespace tg {

struct NonFinite {
  int64_t index = -1;  // row-major; -1 when every element is finite
  double value = 0;
};

// t's first NaN or +-Inf element (floating tensors, any device; others are always finite). A
// scan (all_finite), and a copy of t only when t is not finite.
NonFinite first_non_finite(const Tensor& t);

}  // namespace tg
