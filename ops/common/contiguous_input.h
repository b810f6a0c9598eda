#pragma once
// The contiguous form of an op's input, for the kernels that read contiguous memory.
#include "core/copy.h"
#include "core/tensor.h"

namespace tg {

// t itself when it is contiguous or undefined (an optional argument left out), else a contiguous copy.
inline Tensor contiguous_or_copy(const Tensor& t) {
  return !t.defined() || t.is_contiguous() ? t : contiguous_copy(t);
}

}  // namespace tg
