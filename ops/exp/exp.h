#pragma once
// exp: out = e^x.
//   x (...) -> out (same shape)
// Forward formula and backward rule per input: TG_OP_DOC in ops/exp/exp.cpp (docs/ops.md).
#include "core/tensor.h"

namespace tg {

Tensor exp(const Tensor& x);

// Kernels (= write; outputs contiguous of inp's shape):
//   out  = exp(inp)
//   dinp = dout * out
void exp_forward_cpu(const Tensor& out, const Tensor& inp);
void exp_forward_cuda(const Tensor& out, const Tensor& inp);
void exp_backward_cpu(const Tensor& dinp, const Tensor& dout, const Tensor& out);
void exp_backward_cuda(const Tensor& dinp, const Tensor& dout, const Tensor& out);

}  // namespace tg
