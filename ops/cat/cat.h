#pragma once
// cat: the tensors joined end to end along `dim` (a new tensor: a copy).
//   tensors[i] (s0, ..., n_i, ..., sk-1), all sizes equal except dim -> out (s0, ..., sum n_i, ..., sk-1)
// Backward, for each input i starting at offset o_i = n_0 + ... + n_(i-1):
//   dtensors[i] = narrow(grad, dim, o_i, n_i)
#include <vector>

#include "core/tensor.h"

namespace tg {

Tensor cat(const std::vector<Tensor>& tensors, int64_t dim);

}  // namespace tg
