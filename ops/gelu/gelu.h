#pragma once
// gelu: the Gaussian error linear unit, out = x * Phi(x), Phi = the standard normal CDF.
//   x (...) -> out (same shape)
// approx = none (exact, erf form): forward formula and backward rule in the op's record,
// ops/gelu/gelu.cpp (TG_OP_DOC; docs/ops.md).
// approx = tanh (as in GPT-2 and PyTorch's approximate="tanh"):
//   u   = sqrt(2/pi) (x + 0.044715 x^3),  t = tanh(u),  out = 0.5 x (1 + t)
//   dx  = grad * (0.5 (1 + t) + 0.5 x (1 - t^2) sqrt(2/pi) (1 + 3 * 0.044715 x^2))
#include "core/tensor.h"

namespace tg {

enum class GeluApprox { none, tanh };

Tensor gelu(const Tensor& x, GeluApprox approx = GeluApprox::none);

// gelu(x) rounds by this thread's numerics version (core/numerics.h), read when it is called; its
// gradients round as it did.
//
// Kernels (= write; outputs contiguous of inp's shape): out = gelu(inp), dinp = dout * gelu'(inp).
// The CPU's float32 erf form takes the erf of `numerics`; the CUDA kernels are the same in every
// version.
void gelu_forward_cpu(const Tensor& out, const Tensor& inp, GeluApprox approx, int64_t numerics);
void gelu_forward_cuda(const Tensor& out, const Tensor& inp, GeluApprox approx);
void gelu_backward_cpu(const Tensor& dinp, const Tensor& dout, const Tensor& inp, GeluApprox approx,
                       int64_t numerics);
void gelu_backward_cuda(const Tensor& dinp, const Tensor& dout, const Tensor& inp, GeluApprox approx);

}  // namespace tg
