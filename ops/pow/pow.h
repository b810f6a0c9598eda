#pragma once
// pow: out = x^p for a scalar exponent p.
//   x (...) -> out (same shape)
// A negative x with a non-integer p gives NaN (and 0 with p < 0 gives Inf), as in PyTorch:
// no error is thrown; anomaly mode reports it.
// Forward formula and backward rule per input: TG_OP_DOC in ops/pow/pow.cpp (docs/ops.md).
#include "core/tensor.h"

namespace tg {

Tensor pow(const Tensor& x, double p);

// Kernels: out = x^p (= writes); dinp = dout * p * inp^(p-1) (= writes). Outputs contiguous,
// of inp's shape.
void pow_forward_cpu(const Tensor& out, const Tensor& x, double p);
void pow_forward_cuda(const Tensor& out, const Tensor& x, double p);
void pow_backward_cpu(const Tensor& dinp, const Tensor& dout, const Tensor& inp, double p);
void pow_backward_cuda(const Tensor& dinp, const Tensor& dout, const Tensor& inp, double p);

}  // namespace tg
