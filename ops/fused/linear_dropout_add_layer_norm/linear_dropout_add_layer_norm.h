#pragma once
// linear_dropout_add_layer_norm: layer_norm(residual + dropout(linear(x, weight, bias))) as one op,
// a post-LN Transformer block's last layer (attention's out_proj, the feed-forward's second
// layer) with its residual connection and norm, in one parallel region forward and one backward
// where linear and dropout_add_layer_norm take two each. The values, the mask, the generator's
// advance and every gradient are those of linear (ops/fused/linear) followed by
// dropout_add_layer_norm (ops/fused/dropout_add_layer_norm), bit for bit on the CPU.
//   x (..., in), weight (out, in), bias (out) or undefined, residual (..., out) (y's shape),
//   norm_weight/norm_bias (normalized_shape) optional -> out like residual, contiguous
//   y    = x @ weight^T + bias                                        (linear)
//   sum  = residual + (keep ? y / (1-p) : 0)    keep as dropout draws it (reserve_dropout(gen, n, p))
//   out  = layer_norm(sum, normalized_shape, norm_weight, norm_bias, eps)
// training == false or p == 0: dropout_add_layer_norm(residual, linear(x, weight, bias), ...)
// ("linear", "add" and "layer_norm" tape entries, no draw).
// Forward formula and backward rule per input: TG_OP_DOC in
// ops/fused/linear_dropout_add_layer_norm/linear_dropout_add_layer_norm.cpp (docs/ops.md).
// How, on the CPU in float32: the product writes y; once it is complete, the same team of threads
// draws the mask and makes the sum, then normalises the sum's rows (GemmPhase::after). Backward,
// the team first runs layer_norm's backward over the rows, the sum's rows made again from the
// mask, and makes gy = keep * dsum / (1-p) row by row (GemmPhase::before); then linear's products
// and bias sums from gy. Elsewhere kernel after kernel.
// Saved: y, keep, mean, rstd and what the two ops save (x, weight, residual, norm_weight; bias
// too, so that the reference rule can make y again with ops).
// Derivative: dsum = layer_norm's dx for grad; dresidual = dsum; gy = keep * dsum / (1-p); dx,
// dweight, dbias = linear's for gy; dnorm_weight, dnorm_bias = layer_norm's.
// nn::Linear::forward_dropout_add_norm runs it for nn::EncoderLayer's and nn::DecoderLayer's post-LN
// residual connections unless the model is composed, a forward hook watches a module it covers, or
// the dropout does not draw (eval, p = 0).
#include "core/rng.h"
#include "core/tensor.h"

namespace tg {

Tensor linear_dropout_add_layer_norm(const Tensor& x, const Tensor& weight, const Tensor& bias, const Tensor& residual,
                                     double p, bool training, const Shape& normalized_shape,
                                     const Tensor& norm_weight = {}, const Tensor& norm_bias = {}, double eps = 1e-5,
                                     Generator& gen = default_generator());

}  // namespace tg
