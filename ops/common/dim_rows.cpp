#include "ops/common/dim_rows.h"

namespace tg {

DimRows dim_rows(const Shape& shape, int64_t dim, const char* op) {
  const int64_t rank = static_cast<int64_t>(shape.size());
  DimRows rows;
  rows.dim = wrap_dim(dim, rank, op, shape);
  if (rank == 0) return rows;
  for (int64_t d = 0; d < rows.dim; ++d) rows.outer *= shape[d];
  rows.dim_size = shape[rows.dim];
  for (int64_t d = rows.dim + 1; d < rank; ++d) rows.inner *= shape[d];
  return rows;
}

}  // namespace tg
