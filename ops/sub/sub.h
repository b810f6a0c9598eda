#pragma once
// sub: out = a - b, with numpy broadcasting.
//   a (...), b (...) -> out (broadcast shape)
// Forward formula and backward rule per input: TG_OP_DOC in ops/sub/sub.cpp (docs/ops.md).
#include "core/tensor.h"

namespace tg {

Tensor sub(const Tensor& a, const Tensor& b);
Tensor sub(const Tensor& a, double b);  // a - b
Tensor sub(double a, const Tensor& b);  // a - b
inline Tensor operator-(const Tensor& a, const Tensor& b) { return sub(a, b); }
inline Tensor operator-(const Tensor& a, double b) { return sub(a, b); }
inline Tensor operator-(double a, const Tensor& b) { return sub(a, b); }

// Kernels: out = a - b (= writes); out contiguous, a and b broadcast to it.
void sub_forward_cpu(const Tensor& out, const Tensor& a, const Tensor& b);
void sub_forward_cuda(const Tensor& out, const Tensor& a, const Tensor& b);

}  // namespace tg
