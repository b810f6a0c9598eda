#pragma once
// dropout_add: residual + dropout(x) as one op, a Transformer block's residual connection
// (x + dropout(sublayer(x))), in one pass forward where dropout and add take two. The mask, the
// values and the generator's advance are those of dropout (ops/dropout) followed by add with
// the same generator state, bit for bit on the CPU.
//   residual (...), x (...) of one shape, dtype and device -> out (...) contiguous
//   kept[i] = draw.keeps(i)     (draw = reserve_dropout(gen, n, p), as dropout)
//   out[i]  = residual[i] + (kept[i] ? x[i] / (1-p) : 0)
// training == false or p == 0: add(residual, x) (an "add" tape entry, no draw).
// Forward formula and backward rule per input: TG_OP_DOC in ops/fused/dropout_add/dropout_add.cpp
// (docs/ops.md).
// Saved: keep. Derivative: dresidual = grad, dx = keep * grad / (1-p) (add's and dropout's rules);
// forward mode tresidual + tx * keep / (1-p).
// nn::Dropout::forward_added_to runs it (for the residual connections of nn::EncoderLayer and
// nn::DecoderLayer) unless the model is composed or the dropout has forward hooks.
#include "core/rng.h"
#include "core/tensor.h"

namespace tg {

Tensor dropout_add(const Tensor& residual, const Tensor& x, double p, bool training,
                   Generator& gen = default_generator());

// Shared with dropout_add_layer_norm: the errors for a bad residual, x or p, naming `op`.
void check_dropout_add_args(const Tensor& residual, const Tensor& x, double p, const char* op);

}  // namespace tg
