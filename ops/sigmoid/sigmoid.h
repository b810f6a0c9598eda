#pragma once
// sigmoid: out = 1 / (1 + e^-x).
//   x (...) -> out (same shape)
// Forward formula and backward rule per input: TG_OP_DOC in ops/sigmoid/sigmoid.cpp (docs/ops.md).
#include "core/tensor.h"

namespace tg {

Tensor sigmoid(const Tensor& x);

// Kernels (= write; outputs contiguous of inp's shape):
//   out  = sigmoid(inp)
//   dinp = dout * out * (1 - out)
void sigmoid_forward_cpu(const Tensor& out, const Tensor& inp);
void sigmoid_forward_cuda(const Tensor& out, const Tensor& inp);
void sigmoid_backward_cpu(const Tensor& dinp, const Tensor& dout, const Tensor& out);
void sigmoid_backward_cuda(const Tensor& dinp, const Tensor& dout, const Tensor& out);

}  // namespace tg
