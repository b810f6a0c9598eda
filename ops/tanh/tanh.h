#pragma once
// tanh: out = tanh(x).
//   x (...) -> out (same shape)
// Forward formula and backward rule per input: TG_OP_DOC in ops/tanh/tanh.cpp (docs/ops.md).
#include "core/tensor.h"

namespace tg {

Tensor tanh(const Tensor& x);

// Kernels (= write; outputs contiguous of inp's shape):
//   out  = tanh(inp)
//   dinp = dout * (1 - out^2)
void tanh_forward_cpu(const Tensor& out, const Tensor& inp);
void tanh_forward_cuda(const Tensor& out, const Tensor& inp);
void tanh_backward_cpu(const Tensor& dinp, const Tensor& dout, const Tensor& out);
void tanh_backward_cuda(const Tensor& dinp, const Tensor& dout, const Tensor& out);

}  // namespace tg
