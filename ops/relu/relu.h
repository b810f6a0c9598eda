#pragma once
// relu: out = max(x, 0) (NaN stays NaN).
//   x (...) -> out (same shape)
// Forward formula and backward rule per input: TG_OP_DOC in ops/relu/relu.cpp (docs/ops.md).
#include "core/tensor.h"

namespace tg {

Tensor relu(const Tensor& x);

// relu's derivative, x > 0 as 1, else 0 (0 at 0, as the kernel): a constant, recorded on no tape,
// since a step's derivative is 0 wherever it has one (relu's rule; linear_relu's, at its output).
Tensor relu_step(const Tensor& x);

// Kernels (= write; outputs contiguous of inp's shape):
//   out  = relu(inp)
//   dinp = dout * (inp > 0)
void relu_forward_cpu(const Tensor& out, const Tensor& inp);
void relu_forward_cuda(const Tensor& out, const Tensor& inp);
void relu_backward_cpu(const Tensor& dinp, const Tensor& dout, const Tensor& inp);
void relu_backward_cuda(const Tensor& dinp, const Tensor& dout, const Tensor& inp);

}  // namespace tg
