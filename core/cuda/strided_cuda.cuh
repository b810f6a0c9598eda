#pragma once
// Device-side strided indexing: a tensor's shape and strides packed by value into a kernel
// argument, and a grid-stride loop over the elements of a shape.
#include <cstdint>

#include "core/copy.h"

namespace tg {

struct StridedDesc {
  int rank = 0;
  int64_t shape[kMaxRank];
  int64_t strides[kMaxRank];
  int64_t offset = 0;

  StridedDesc() = default;
  // `strides_of` lets a broadcast operand be described over the output's shape.
  StridedDesc(const Shape& shape_, const Shape& strides_, int64_t offset_) : rank(static_cast<int>(shape_.size())), offset(offset_) {
    for (int d = 0; d < rank; ++d) shape[d] = shape_[d], strides[d] = strides_[d];
  }
  explicit StridedDesc(const Tensor& t) : StridedDesc(t.shape(), t.strides(), 0) {}

  // Offset (from the tensor's first element) of the row-major element `flat`.
  __device__ int64_t at(int64_t flat) const {
    int64_t off = 0;
    for (int d = rank - 1; d >= 0; --d) {
      off += (flat % shape[d]) * strides[d];
      flat /= shape[d];
    }
    return off;
  }
};

inline constexpr int kThreads = 256;
inline int blocks_for(int64_t n) {
  int64_t b = (n + kThreads - 1) / kThreads;
  return static_cast<int>(b < 65535 ? (b < 1 ? 1 : b) : 65535);
}

#define TG_GRID_STRIDE_LOOP(i, n)                                                          \
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < (n); \
       i += static_cast<int64_t>(blockDim.x) * gridDim.x)

}  // namespace tg
