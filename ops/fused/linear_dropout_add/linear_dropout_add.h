#pragma once
// linear_dropout_add: residual + dropout(linear(x, weight, bias)) as one op, a pre-LN Transformer
// block's last layer (attention's out_proj, the feed-forward's second layer) with its residual
// connection, in one parallel region forward where linear and dropout_add (or add) take two. The
// values, the mask, the generator's advance and every gradient are those of linear
// (ops/fused/linear) followed by dropout_add (ops/fused/dropout_add), bit for bit on the CPU.
//   x (..., in), weight (out, in), bias (out) or undefined, residual (..., out) (y's shape)
//   -> out like residual, contiguous
//   y        = x @ weight^T + bias                                     (linear)
//   out      = residual + (keep ? y / (1-p) : 0)   keep as dropout draws it (reserve_dropout(gen, n, p))
// training == false or p == 0: out = residual + y, no draw (still one entry).
// Forward formula and backward rule per input: TG_OP_DOC in
// ops/fused/linear_dropout_add/linear_dropout_add.cpp (docs/ops.md).
// How, on the CPU in float32: the product writes y into out; once it is complete, the same team
// draws the mask and adds the residual in place (GemmPhase::after). Backward, the team first makes
// gy = keep * grad / (1-p) (GemmPhase::before; gy = grad without a draw), then linear's products
// and bias sums from gy. Elsewhere kernel after kernel.
// Saved: keep (where drawn) and what linear saves.
// Derivative: dresidual = grad; gy = keep * grad / (1-p); dx, dweight, dbias = linear's for gy.
// nn::Linear::forward_dropout_add runs it for nn::EncoderLayer's and nn::DecoderLayer's pre-LN
// residual connections unless the model is composed or a forward hook watches the layer, the
// attention or the dropout.
#include "core/rng.h"
#include "core/tensor.h"

namespace tg {

Tensor linear_dropout_add(const Tensor& x, const Tensor& weight, const Tensor& bias, const Tensor& residual, double p,
                          bool training, Generator& gen = default_generator());

}  // namespace tg
