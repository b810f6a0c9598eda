#pragma once
// Shared by the reduction op folders (sum, mean, max): which dims a reduction removes and the
// shapes it produces. Errors name `op`, the offending dim and x's shape.
#include <vector>

#include "core/tensor.h"

namespace tg {

struct ReduceShape {
  Shape keep;         // x.shape with every reduced dim as size 1 (the keepdim result)
  Shape out;          // the result's shape: keep, or keep without the reduced dims (!keepdim)
  int64_t count = 1;  // elements reduced into each output element: product of reduced sizes
};

// dims may be negative (counted from the end); each must be in range and appear once. A 0-d x
// accepts dim 0 or -1 (as in PyTorch) and reduces nothing. Empty dims reduce nothing.
ReduceShape reduce_shape(const Tensor& x, const std::vector<int64_t>& dims, bool keepdim, const char* op);

// The dims a reduction kernel walks for each output element: those where `keep` (x.shape
// with the reduced dims as size 1) has size 1 and x does not. Shared by the CPU and GPU kernels.
struct ReducedDims {
  Shape shape;    // their sizes, in x's dim order
  Shape strides;  // x's strides along them
};
ReducedDims reduced_dims(const Tensor& x, const Shape& keep);

// {0, 1, ..., x.dim()-1}: the dims of a reduction over all elements.
std::vector<int64_t> all_dims(const Tensor& x);

}  // namespace tg
