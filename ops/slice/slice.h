#pragma once
// slice: a view of x keeping positions start, start+step, ... < end of one dim (no copy),
// like Python's x[..., start:end:step, ...]. Negative start/end count from the end; both are
// then clamped to 0..size (so end = INT64_MAX means "to the end"); step must be >= 1.
//   x (..., n, ...) -> out (..., ceil((end - start) / step), ...)    (0 when end <= start)
// narrow: the same view of `length` positions from `start`, which must lie inside the dim
// (start may be negative; no clamping: out of range is an error). It records as "slice".
// Forward formula and backward rule per input: TG_OP_DOC in ops/slice/slice.cpp (docs/ops.md).
#include "core/tensor.h"

namespace tg {

Tensor slice(const Tensor& x, int64_t dim, int64_t start, int64_t end, int64_t step = 1);
Tensor narrow(const Tensor& x, int64_t dim, int64_t start, int64_t length);

// The view alone, for ops that cut tensors into pieces (cat, split): dim already wrapped and
// 0 <= start <= end <= x.size(dim), step >= 1. No checks, no tape entry.
Tensor slice_view(const Tensor& x, int64_t dim, int64_t start, int64_t end, int64_t step = 1);

// slice's backward with ops (differentiable again), for fused ops that take a slice's place
// (embedding_add_positions): zeros of x_shape with grad at positions lo, lo + step, ... < hi of
// dim d.
Tensor spread_into_zeros(const Tensor& grad, const Shape& x_shape, int64_t d, int64_t lo, int64_t hi, int64_t step);

}  // namespace tg
