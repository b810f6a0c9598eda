#pragma once
// div: out = a / b (elementwise), with numpy broadcasting. Division by zero gives +-Inf or
// NaN as in IEEE arithmetic (anomaly mode reports it); it does not throw.
//   a (...), b (...) -> out (broadcast shape)
// Forward formula and backward rule per input: TG_OP_DOC in ops/div/div.cpp (docs/ops.md).
#include "core/tensor.h"

namespace tg {

Tensor div(const Tensor& a, const Tensor& b);
Tensor div(const Tensor& a, double b);  // a / b
Tensor div(double a, const Tensor& b);  // a / b
inline Tensor operator/(const Tensor& a, const Tensor& b) { return div(a, b); }
inline Tensor operator/(const Tensor& a, double b) { return div(a, b); }
inline Tensor operator/(double a, const Tensor& b) { return div(a, b); }

// Kernels: out = a / b (= writes); out contiguous, a and b broadcast to it.
void div_forward_cpu(const Tensor& out, const Tensor& a, const Tensor& b);
void div_forward_cuda(const Tensor& out, const Tensor& a, const Tensor& b);

}  // namespace tg
