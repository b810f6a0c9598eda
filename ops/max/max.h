#pragma once
// max: the largest element over one dim (with its position), or over all elements.
//   x (d0, ..., dn-1), dim k -> values (x.shape without dim k; keepdim: k kept as size 1)
//                               indices (same shape, int64): position of the maximum along k
//   x (...)                  -> () the largest of all elements
// Ties: the first maximal position wins (the lowest index along k; for max(x), the first in
// row-major order). NaN propagates: if any reduced element is NaN the max is NaN and its index
// is that of the first NaN. Reducing zero elements (max(x) of an empty x, or a dim of size 0)
// is an error.
// The derivative is that of the maximum the indices name: 1 there, 0 elsewhere, a constant. At
// a tie it jumps (the max is not differentiable there), so gradcheck and the second-order and
// forward-mode checks use inputs without ties.
// Forward formula and backward rule per input: TG_OP_DOC in ops/max/max.cpp (docs/ops.md).
#include <vector>

#include "core/tensor.h"

namespace tg {

struct MaxResult {
  Tensor values;   // the maxima, x's dtype
  Tensor indices;  // int64, where each maximum sits along the reduced dim
};

Tensor max(const Tensor& x);  // all elements -> shape ()
Tensor max(const Tensor& x, int64_t dim, bool keepdim = false);
MaxResult max_with_indices(const Tensor& x, int64_t dim, bool keepdim = false);

// Kernels (CPU and CUDA alike). out, indices (x.shape with dim as size 1, contiguous) = max of
// x along dim and its first position (= writes). x any strides, x.size(dim) > 0. A 0-d x counts
// as one element.
void max_forward_cpu(const Tensor& out, const Tensor& indices, const Tensor& x, int64_t dim);
void max_forward_cuda(const Tensor& out, const Tensor& indices, const Tensor& x, int64_t dim);
// out () = max of all elements of x, index () = its row-major position (= writes). x any
// strides, numel > 0. A parallel reduction (OpenMP threads; one GPU block).
void max_all_forward_cpu(const Tensor& out, const Tensor& index, const Tensor& x);
void max_all_forward_cuda(const Tensor& out, const Tensor& index, const Tensor& x);
// dx (x.shape, contiguous) = 0 except dx[..., indices, ...] = grad along dim (= writes every
// element). indices, grad (x.shape with dim as size 1), grad any strides.
void max_backward_cpu(const Tensor& dx, const Tensor& indices, const Tensor& grad, int64_t dim);
void max_backward_cuda(const Tensor& dx, const Tensor& indices, const Tensor& grad, int64_t dim);

}  // namespace tg
