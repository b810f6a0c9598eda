#pragma once
// neg: out = -x.
//   x (...) -> out (same shape)
// Forward formula and backward rule per input: TG_OP_DOC in ops/neg/neg.cpp (docs/ops.md).
#include "core/tensor.h"

namespace tg {

Tensor neg(const Tensor& x);
inline Tensor operator-(const Tensor& x) { return neg(x); }

// Kernel: out = -x (= writes); out contiguous of x's shape.
void neg_forward_cpu(const Tensor& out, const Tensor& x);
void neg_forward_cuda(const Tensor& out, const Tensor& x);

}  // namespace tg
