#pragma once
// Shape and strides: row-major, in elements. A broadcast dimension has stride 0.
#include <cstdint>
#include <string>
#include <vector>

namespace tg {

using Shape = std::vector<int64_t>;

// The most dims a tensor has: the strided loops (CPU and GPU) keep a multi-index of this size.
inline constexpr int64_t kMaxDims = 16;

// Checks a shape a tensor is to have (every factory and every view does): at most kMaxDims
// dims, no negative size, and sizes whose product, with element_size bytes per element, fits
// in int64 (zero sizes aside, so a tensor's strides fit too); throws naming op, the shape and
// the limit.
void check_shape(const Shape& shape, int64_t element_size, const char* op);

// The element count; throws when the sizes multiply past int64 (never for a tensor's shape,
// which check_shape has seen).
int64_t numel(const Shape& shape);
Shape contiguous_strides(const Shape& shape);
std::string shape_str(const Shape& shape);  // "(2,3,4)"

// Wraps a possibly negative dim into [0, rank); throws naming op and shape when out of range.
int64_t wrap_dim(int64_t dim, int64_t rank, const char* op, const Shape& shape);

// Strides that view a tensor of (shape, strides) as `target` (right-aligned numpy broadcast):
// 0 on dims that are new or of size 1 in the source. The caller has checked compatibility.
Shape broadcast_strides(const Shape& shape, const Shape& strides, const Shape& target);

// The broadcast of two shapes (numpy rules); throws naming the op and both shapes.
Shape broadcast_shapes(const Shape& a, const Shape& b, const char* op);

}  // namespace tg
