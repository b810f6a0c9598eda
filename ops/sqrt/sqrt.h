#pragma once
// sqrt: out = sqrt(x).
//   x (...) -> out (same shape)
// Like PyTorch, a negative x gives NaN: no error is thrown; anomaly mode reports it
// (and the gradient at x == 0 is Inf).
// Forward formula and backward rule per input: TG_OP_DOC in ops/sqrt/sqrt.cpp (docs/ops.md).
#include "core/tensor.h"

namespace tg {

Tensor sqrt(const Tensor& x);

// Kernels (= write; outputs contiguous of inp's shape):
//   out  = sqrt(inp)
//   dinp = dout / (2 * out)
void sqrt_forward_cpu(const Tensor& out, const Tensor& inp);
void sqrt_forward_cuda(const Tensor& out, const Tensor& inp);
void sqrt_backward_cpu(const Tensor& dinp, const Tensor& dout, const Tensor& out);
void sqrt_backward_cuda(const Tensor& dinp, const Tensor& dout, const Tensor& out);

}  // namespace tg
