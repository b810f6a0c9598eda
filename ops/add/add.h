#pragma once
// add: out = a + b, with numpy broadcasting.
//   a (...), b (...) -> out (broadcast shape)
// Forward formula and backward rule per input: TG_OP_DOC in ops/add/add.cpp (docs/ops.md).
#include "core/tensor.h"

namespace tg {

Tensor add(const Tensor& a, const Tensor& b);
Tensor add(const Tensor& a, double b);
inline Tensor operator+(const Tensor& a, const Tensor& b) { return add(a, b); }
inline Tensor operator+(const Tensor& a, double b) { return add(a, b); }
inline Tensor operator+(double a, const Tensor& b) { return add(b, a); }

// Kernels: out = a + b (= writes); out contiguous, a and b broadcast to it.
void add_forward_cpu(const Tensor& out, const Tensor& a, const Tensor& b);
void add_forward_cuda(const Tensor& out, const Tensor& a, const Tensor& b);

}  // namespace tg
