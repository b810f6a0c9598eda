#pragma once
// relu_dropout: dropout(relu(x)) as one op, in one pass over x forward and one backward where
// the two ops take two each. The values, the mask and the generator's advance are those of
// relu followed by dropout (ops/relu, ops/dropout) with the same generator state, bit for bit.
//   x (...) -> out (...) contiguous, same dtype
//   kept[i] = draw.keeps(i)     (draw = reserve_dropout(gen, n, p), as dropout)
//   out[i]  = kept[i] ? relu(x[i]) / (1-p) : 0    (relu(NaN) is NaN, as relu)
// training == false or p == 0: relu(x) (a "relu" tape entry, no draw).
// Forward formula and backward rule per input: TG_OP_DOC in ops/fused/relu_dropout/relu_dropout.cpp
// (docs/ops.md).
// Saved: keep = kept && x > 0, the two ops' masks in one.
// Derivative: dx = keep * grad / (1-p), forward mode tx * keep / (1-p), a constant factor (the
// draw and relu's step have derivative 0 wherever they have one): the rules of dropout's entry
// (ops/dropout/dropout.cpp), which this op shares. relu has no derivative at 0: the checks of
// second order and forward mode keep x away from 0.
// nn::FeedForward and nn::EncoderLayer use it for a relu activation unless told not to
// (fuse_relu_dropout = false keeps the two entries on the tape, to step through).
#include "core/rng.h"
#include "core/tensor.h"

namespace tg {

Tensor relu_dropout(const Tensor& x, double p, bool training, Generator& gen = default_generator());

}  // namespace tg
