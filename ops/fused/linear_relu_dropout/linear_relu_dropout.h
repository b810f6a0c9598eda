#pragma once
// linear_relu_dropout: dropout(relu(linear(x, weight, bias))) as one op, a feed-forward block's
// first layer with its activation and dropout, in one parallel region forward and one backward
// where linear and relu_dropout take two each. The values, the mask, the generator's advance and
// every gradient are those of linear (ops/fused/linear) followed by relu_dropout
// (ops/fused/relu_dropout), bit for bit on the CPU.
//   x (..., in), weight (out, in), bias (out) or undefined -> out (..., out) contiguous
//   y        = x @ weight^T + bias                                  (linear)
//   kept[i]  = draw.keeps(i)                                        (draw = reserve_dropout(gen, n, p))
//   out[i]   = kept[i] ? relu(y[i]) / (1-p) : 0                     (relu_dropout)
// training == false or p == 0: relu(linear(x, weight, bias)) ("linear" and "relu" tape entries,
// no draw).
// Forward formula and backward rule per input: TG_OP_DOC in
// ops/fused/linear_relu_dropout/linear_relu_dropout.cpp (docs/ops.md).
// How, on the CPU in float32: the product writes y into out, and the same team of threads then
// draws the mask over out in place (GemmPhase::after: once the product is complete). Backward,
// the team first makes gy = keep * grad / (1-p) (GemmPhase::before), then linear's products and
// bias sums from gy. Elsewhere kernel after kernel.
// Saved: keep = kept && y > 0 (relu_dropout's mask; y itself is not kept), and what linear saves
// (x for dweight, weight for dx).
// Derivative: gy = keep * grad / (1-p); dx, dweight, dbias = linear's for gy. Forward mode:
// tout = keep * linear's tangent / (1-p). relu has no derivative at 0: the checks of second order
// and forward mode keep y away from 0.
// nn::Linear::forward_relu_dropout runs it for nn::FeedForward's and the Transformer layers'
// first layer unless the model is composed, a forward hook watches the layer or the dropout, or
// the dropout does not draw (eval, p = 0).
#include "core/rng.h"
#include "core/tensor.h"

namespace tg {

Tensor linear_relu_dropout(const Tensor& x, const Tensor& weight, const Tensor& bias, double p, bool training,
                           Generator& gen = default_generator());

}  // namespace tg
