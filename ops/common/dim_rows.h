#pragma once
// A contiguous tensor seen as rows along one dim, for the kernels that normalise or reduce
// along `dim` (softmax, log_softmax, ...). With `dim` of size dim_size,
//   outer = product of the sizes before dim,  inner = product of the sizes after dim,
// the tensor is (outer, dim_size, inner) and has outer * inner rows. Row r = (o, i) holds the
// dim_size elements at row_start(r) + j * inner, j = 0..dim_size-1.
//   (2,3,4), dim 1 -> outer 2, dim_size 3, inner 4: 8 rows of 3 elements, 4 apart.
#include <cmath>
#include <cstdint>

#include "core/shape.h"

namespace tg {

struct DimRows {
  int64_t dim = 0;  // wrapped into [0, rank)
  int64_t outer = 1;
  int64_t dim_size = 1;
  int64_t inner = 1;
};

// Wraps `dim` (negative counts from the end; a 0-d tensor is one row of one element) and
// splits `shape` around it. Throws "<op>: dim ... is out of range ..." naming the shape.
DimRows dim_rows(const Shape& shape, int64_t dim, const char* op);

// Offset of the first element of row r in an (outer, dim_size, inner) contiguous tensor.
// constexpr, so that the CUDA kernels call it too (nvcc's --expt-relaxed-constexpr).
constexpr int64_t row_start(int64_t r, int64_t dim_size, int64_t inner) {
  return (r / inner) * dim_size * inner + r % inner;
}

// Largest of the row's elements x[0], x[inner], ..., x[(dim_size-1) * inner]. A NaN sticks,
// so that it reaches every output of the row; -inf means every element is -inf (masked).
template <class T>
double row_max(const T* x, int64_t dim_size, int64_t inner) {
  double maxval = -INFINITY;
  for (int64_t j = 0; j < dim_size; ++j)
    if (x[j * inner] > maxval || std::isnan(x[j * inner])) maxval = x[j * inner];
  return maxval;
}

}  // namespace tg
