#pragma once
// log: out = ln(x), the natural logarithm.
//   x (...) -> out (same shape)
// Like PyTorch, log(0) = -Inf and a negative x gives NaN: no error is thrown; anomaly
// mode reports them.
// Forward formula and backward rule per input: TG_OP_DOC in ops/log/log.cpp (docs/ops.md).
#include "core/tensor.h"

namespace tg {

Tensor log(const Tensor& x);

// Kernels (= write; outputs contiguous of inp's shape):
//   out  = log(inp)
//   dinp = dout / inp
void log_forward_cpu(const Tensor& out, const Tensor& inp);
void log_forward_cuda(const Tensor& out, const Tensor& inp);
void log_backward_cpu(const Tensor& dinp, const Tensor& dout, const Tensor& inp);
void log_backward_cuda(const Tensor& dinp, const Tensor& dout, const Tensor& inp);

}  // namespace tg
