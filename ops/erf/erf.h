#pragma once
// erf: the Gauss error function, out = erf(x) = 2/sqrt(pi) * integral from 0 to x of e^(-t^2) dt.
//   x (...) -> out (same shape)
// gelu's derivative is written with it (Phi(x) = (1 + erf(x / sqrt(2))) / 2). It has no backward
// kernel: its reference rule runs everywhere.
// Forward formula and backward rule per input: TG_OP_DOC in ops/erf/erf.cpp (docs/ops.md).
#include "core/tensor.h"

namespace tg {

Tensor erf(const Tensor& x);

// Kernels (= write; out contiguous of inp's shape): out = erf(inp)
void erf_forward_cpu(const Tensor& out, const Tensor& inp);
void erf_forward_cuda(const Tensor& out, const Tensor& inp);

}  // namespace tg
