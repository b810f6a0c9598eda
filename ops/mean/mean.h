#pragma once
// mean: the average of the elements over some dims (or all of them).
//   x (d0, ..., dn-1), dims {k...} -> out with each dim k removed (keepdim: kept as size 1)
//   out = sum(x, dims) / count,   count = product of x.size(k) over the reduced dims
// dims may be negative; empty dims reduce nothing (as for sum).
// The mean of zero elements is 0/0 = NaN, as in PyTorch (e.g. mean of a (0,3) tensor over
// dim 0 is three NaNs; over dim 1 it is an empty (0,) tensor).
// Forward formula and backward rule per input: TG_OP_DOC in ops/mean/mean.cpp (docs/ops.md).
#include <vector>

#include "core/tensor.h"

namespace tg {

Tensor mean(const Tensor& x);  // all elements -> shape ()
Tensor mean(const Tensor& x, const std::vector<int64_t>& dims, bool keepdim = false);

// Kernels. out (keepdim shape, contiguous) = sum of x over the dims where out has size 1 and
// x does not, divided by count (= writes).
void mean_forward_cpu(const Tensor& out, const Tensor& x, int64_t count);
void mean_forward_cuda(const Tensor& out, const Tensor& x, int64_t count);
// dx_keep (keepdim shape, contiguous) = grad / count (= writes); grad has the keepdim shape,
// any strides. The op expands dx_keep to x's shape.
void mean_backward_cpu(const Tensor& dx_keep, const Tensor& grad, int64_t count);
void mean_backward_cuda(const Tensor& dx_keep, const Tensor& grad, int64_t count);

}  // namespace tg
