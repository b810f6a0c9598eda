#pragma once
// permute: a view of x with its dims reordered (no copy): out dim i is x dim dims[i].
//   x (s0, ..., sn-1), dims a permutation of 0..n-1 (negative allowed) -> out (s[dims[0]], ...)
// Forward formula and backward rule per input: TG_OP_DOC in ops/permute/permute.cpp (docs/ops.md).
#include <vector>

#include "core/tensor.h"

namespace tg {

Tensor permute(const Tensor& x, const std::vector<int64_t>& dims);

}  // namespace tg
