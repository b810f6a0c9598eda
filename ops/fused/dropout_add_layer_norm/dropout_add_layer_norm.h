#pragma once
// dropout_add_layer_norm: layer_norm(residual + dropout(x)) as one op, a post-LN Transformer
// block's residual connection and norm (nn.TransformerEncoderLayer's default), in one parallel
// region forward and one backward where dropout_add and layer_norm take two each. The mask, the
// values, the generator's advance and every gradient are those of dropout_add (ops/fused/) followed
// by layer_norm (ops/layer_norm), bit for bit on the CPU.
//   residual (..., normalized_shape), x like residual (one dtype and device, no broadcasting),
//   weight/bias (normalized_shape) optional -> out like x, contiguous
//   sum  = residual + (keep ? x / (1-p) : 0)    keep as dropout draws it (reserve_dropout(gen, n, p))
//   out  = layer_norm(sum, normalized_shape, weight, bias, eps)
// training == false or p == 0: layer_norm(add(residual, x)) ("add" and "layer_norm" tape entries,
// no draw).
// Forward formula and backward rule per input: TG_OP_DOC in
// ops/fused/dropout_add_layer_norm/dropout_add_layer_norm.cpp (docs/ops.md).
// Saved: residual, x, keep, mean, rstd (and weight): the sum is made again in backward, inside the
// backward kernel's region, so it holds no more memory than the two ops did (they saved keep and
// the sum; residual is saved by the block that read it too).
// Derivative: dsum = layer_norm's dx for grad; dresidual = dsum, dx = keep * dsum / (1-p);
// dweight, dbias as layer_norm's.
// nn::LayerNorm::forward_of_dropout_add runs it (for nn::EncoderLayer's and nn::DecoderLayer's
// post-LN residual connections) unless the model is composed or the norm or dropout has forward
// hooks.
#include "core/rng.h"
#include "core/tensor.h"
#include "ops/layer_norm/layer_norm.h"

namespace tg {

Tensor dropout_add_layer_norm(const Tensor& residual, const Tensor& x, double p, bool training,
                              const Shape& normalized_shape, const Tensor& weight = {}, const Tensor& bias = {},
                              double eps = 1e-5, Generator& gen = default_generator());

// Its backward in pieces, for fused ops that end with it (ops/fused/linear_dropout_add_layer_norm):
//   DropoutAddNormSaved: what its forward keeps (residual, x contiguous; weight undefined = none)
//   dropout_add_rows: on the CPU in float32, the row work for layer_norm's backward kernel
//     (LayerNormFusion): row n of the sum made again from the mask; row n of dx = keep * dsum
//     / (1-p) once dsum's is final, where dx is given (float32, contiguous, x's shape)
//   dropout_add_norm_kernels: elsewhere, the kernels one after the other: dsum, dweight, dbias
//     (written where defined) for out's gradient g (contiguous); returns dx where want_dx
struct DropoutAddNormSaved {
  Tensor residual, x, keep, mean, rstd, weight;
  double scale;
  int64_t N, C;  // rows, row length
};
LayerNormFusion dropout_add_rows(const DropoutAddNormSaved& saved, const Tensor& dx);
Tensor dropout_add_norm_kernels(const DropoutAddNormSaved& saved, const Tensor& g, const Tensor& dsum,
                                const Tensor& dweight, const Tensor& dbias, bool want_dx);

}  // namespace tg
