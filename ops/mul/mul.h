#pragma once
// mul: out = a * b (elementwise), with numpy broadcasting.
//   a (...), b (...) -> out (broadcast shape)
// Forward formula and backward rule per input: TG_OP_DOC in ops/mul/mul.cpp (docs/ops.md).
#include "core/tensor.h"

namespace tg {

Tensor mul(const Tensor& a, const Tensor& b);
Tensor mul(const Tensor& a, double b);
inline Tensor operator*(const Tensor& a, const Tensor& b) { return mul(a, b); }
inline Tensor operator*(const Tensor& a, double b) { return mul(a, b); }
inline Tensor operator*(double a, const Tensor& b) { return mul(b, a); }

// Kernels: out = a * b (= writes); out contiguous, a and b broadcast to it.
void mul_forward_cpu(const Tensor& out, const Tensor& a, const Tensor& b);
void mul_forward_cuda(const Tensor& out, const Tensor& a, const Tensor& b);

}  // namespace tg
