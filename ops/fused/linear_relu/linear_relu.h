#pragma once
// linear_relu: relu(linear(x, weight, bias)) as one op, a feed-forward block's first layer with its
// activation when no dropout draws (p = 0, or eval): one parallel region forward and one backward
// where linear and relu take two each. The values and every gradient are those of linear
// (ops/fused/linear) followed by relu (ops/relu), bit for bit on the CPU.
//   x (..., in), weight (out, in), bias (out) or undefined -> out (..., out) contiguous
//   out = relu(x @ weight^T + bias)       (relu(NaN) is NaN, as relu)
// Forward formula and backward rule per input: TG_OP_DOC in ops/fused/linear_relu/linear_relu.cpp
// (docs/ops.md).
// How, on the CPU: the GEMM applies relu to each tile of the product as its sums complete, while
// they are in the micro-kernel's registers (GemmActivation::relu; where the product is split over
// its depth, as the parts are added). Backward, the products' team first makes
// gy = out > 0 ? grad : 0 (GemmPhase::before), then linear's products and bias sums from gy. On a
// GPU, linear's kernels and then relu's.
// Saved: out (the mask out > 0 is y > 0: y itself is not kept) and what linear saves (x for
// dweight, weight for dx).
// Derivative: gy = grad * (out > 0); dx, dweight, dbias = linear's for gy. Forward mode:
// tout = linear's tangent * (out > 0). relu has no derivative at 0: the checks of second order
// and forward mode keep y away from 0.
// nn::Linear::forward_relu_dropout runs it for nn::FeedForward's and the Transformer layers' first
// layer when the dropout after it does not draw, unless the model is composed or a forward hook
// watches the layer or the dropout.
#include "core/tensor.h"

namespace tg {

Tensor linear_relu(const Tensor& x, const Tensor& weight, const Tensor& bias);

}  // namespace tg
