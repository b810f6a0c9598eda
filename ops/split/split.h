#pragma once
// split / chunk: x cut along `dim` into consecutive pieces, each a view of x (no copy).
//   split(x, split_size, dim)  pieces of split_size, the last one smaller if n does not divide:
//                              x (5,2), split_size 2, dim 0 -> (2,2), (2,2), (1,2)
//   split(x, sizes, dim)       pieces of the given sizes, which must add up to n:
//                              x (5,2), sizes {1,4}, dim 0 -> (1,2), (4,2)
//   chunk(x, chunks, dim)      split(x, ceil(n / chunks), dim): at most `chunks` pieces
// (A one-element braced list, split(x, {4}, 0), picks the split_size form.)
// All pieces are outputs of one tape entry "split".
// Forward formula and backward rule per input: TG_OP_DOC in ops/split/split.cpp (docs/ops.md).
#include <vector>

#include "core/tensor.h"

namespace tg {

std::vector<Tensor> split(const Tensor& x, int64_t split_size, int64_t dim);
std::vector<Tensor> split(const Tensor& x, const std::vector<int64_t>& sizes, int64_t dim);
std::vector<Tensor> chunk(const Tensor& x, int64_t chunks, int64_t dim);

}  // namespace tg
