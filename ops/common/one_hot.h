#pragma once
// The one-hot encoding of integer indices, for the reference rules of the ops that look
// classes or rows up by index (cross_entropy, embedding): it turns a gather or a scatter into
// a product with a constant, which tapegrad ops can differentiate.
//   indices (I...) int64, classes V -> out (I..., V) of `dtype` on indices' device,
//   out[i..., v] = 1 if indices[i...] == v, else 0; all 0 where indices[i...] == skip
// Built on the host: O(numel(indices) * V) memory and time, which only a backward that creates
// a graph pays. Indices are assumed checked by the op (in [0, V) or equal to skip).
#include <cstdint>

#include "core/tensor.h"

namespace tg {

Tensor one_hot(const Tensor& indices, int64_t classes, DType dtype, int64_t skip = -1);

}  // namespace tg
