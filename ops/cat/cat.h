#pragma once
// cat: the tensors joined end to end along `dim` (a new tensor: a copy).
//   tensors[i] (s0, ..., n_i, ..., sk-1), all sizes equal except dim -> out (s0, ..., sum n_i, ..., sk-1)
// Forward formula and backward rule per input: TG_OP_DOC in ops/cat/cat.cpp (docs/ops.md).
#include <vector>

#include "core/tensor.h"

namespace tg {

Tensor cat(const std::vector<Tensor>& tensors, int64_t dim);

}  // namespace tg
