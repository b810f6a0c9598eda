#pragma once
// masked_fill: x with `value` written wherever mask is true.
//   x (...), mask bool broadcastable to x.shape -> out (x.shape)
//   out = mask ? value : x                       (true = filled, i.e. masked out)
// value may be -inf: masked_fill(scores, mask, -INFINITY) before softmax gives the masked
// keys zero weight. The mask must be bool: a float or int 0/1 mask is an error, because
// "which of 0 and 1 means keep?" is the classic silent bug of attention code; tapegrad has
// one meaning everywhere: true = masked out. The mask may broadcast to x but not x to the
// mask: the output always has x's shape.
// Forward formula and backward rule per input: TG_OP_DOC in ops/masked_fill/masked_fill.cpp (docs/ops.md).
#include "core/tensor.h"

namespace tg {

Tensor masked_fill(const Tensor& x, const Tensor& mask, double value);

// Kernel: out = mask ? value : x (= writes). out contiguous of x's shape; x any strides;
// mask bool, any strides, broadcast to out. All on the CPU, or all on one GPU.
void masked_fill_forward_cpu(const Tensor& out, const Tensor& x, const Tensor& mask, double value);
void masked_fill_forward_cuda(const Tensor& out, const Tensor& x, const Tensor& mask, double value);

}  // namespace tg
