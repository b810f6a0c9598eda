#pragma once
// squeeze: a view of x without size-1 dims (no copy).
//   squeeze(x)       x (2,1,3,1) -> out (2,3)        every size-1 dim removed
//   squeeze(x, dim)  x (2,1,3), dim 1 -> out (2,3)   only `dim`, if its size is 1; as in PyTorch,
//                    a dim of another size is left alone (x (2,3), dim 0 -> out (2,3))
// Forward formula and backward rule per input: TG_OP_DOC in ops/squeeze/squeeze.cpp (docs/ops.md).
#include "core/tensor.h"

namespace tg {

Tensor squeeze(const Tensor& x);
Tensor squeeze(const Tensor& x, int64_t dim);

}  // namespace tg
