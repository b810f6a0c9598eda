#include "core/shape.h"

#include <algorithm>
#include <limits>

#include <fmt/format.h>

#include "core/error.h"

namespace tg {

void check_shape(const Shape& shape, int64_t element_size, const char* op) {
  if (static_cast<int64_t>(shape.size()) > kMaxDims)
    throw Error(op, fmt::format("shape {} has {} dims, at most {} are supported", shape_str(shape),
                                shape.size(), kMaxDims));
  int64_t bytes = element_size;  // the product of the sizes (a zero counted as one) and element_size
  for (int64_t d : shape) {
    if (d < 0) throw Error(op, fmt::format("negative size {} in shape {}", d, shape_str(shape)));
    if (__builtin_mul_overflow(bytes, std::max<int64_t>(d, 1), &bytes))
      throw Error(op, fmt::format("shape {} of {}-byte elements needs more than {} bytes (the sizes "
                                  "multiply past int64's limit)", shape_str(shape), element_size,
                                  std::numeric_limits<int64_t>::max()));
  }
}

int64_t numel(const Shape& shape) {
  int64_t n = 1;
  for (int64_t d : shape)
    if (__builtin_mul_overflow(n, d, &n))
      throw Error("numel", fmt::format("the sizes of shape {} multiply past int64's limit", shape_str(shape)));
  return n;
}

Shape contiguous_strides(const Shape& shape) {
  Shape strides(shape.size());
  int64_t s = 1;
  for (size_t i = shape.size(); i-- > 0;) {
    strides[i] = s;
    s *= shape[i];
  }
  return strides;
}

std::string shape_str(const Shape& shape) {
  if (shape.size() == 1) return fmt::format("({},)", shape[0]);
  return fmt::format("({})", fmt::join(shape, ","));
}

int64_t wrap_dim(int64_t dim, int64_t rank, const char* op, const Shape& shape) {
  int64_t lo = rank == 0 ? -1 : -rank, hi = rank == 0 ? 0 : rank - 1;
  if (dim < lo || dim > hi)
    throw Error(op, fmt::format("dim {} is out of range for a tensor of shape {} (expected {}..{})",
                                dim, shape_str(shape), lo, hi));
  return dim < 0 ? dim + std::max<int64_t>(rank, 1) : dim;
}

Shape broadcast_strides(const Shape& shape, const Shape& strides, const Shape& target) {
  Shape out(target.size(), 0);
  const size_t lead = target.size() - shape.size();
  for (size_t i = 0; i < shape.size(); ++i)
    out[lead + i] = shape[i] == 1 && target[lead + i] != 1 ? 0 : strides[i];
  return out;
}

Shape broadcast_shapes(const Shape& a, const Shape& b, const char* op) {
  size_t rank = std::max(a.size(), b.size());
  Shape out(rank);
  for (size_t i = 0; i < rank; ++i) {
    int64_t da = i < rank - a.size() ? 1 : a[i - (rank - a.size())];
    int64_t db = i < rank - b.size() ? 1 : b[i - (rank - b.size())];
    if (da != db && da != 1 && db != 1)
      throw Error(op, fmt::format("shapes {} and {} cannot be broadcast (dim {}: {} vs {})",
                                  shape_str(a), shape_str(b), i, da, db));
    out[i] = da == 1 ? db : da;
  }
  return out;
}

}  // namespace tg
