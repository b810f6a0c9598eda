#pragma once
// Activation checkpointing of the Transformer stacks (torch.utils.checkpoint applied per layer):
// each layer of a TransformerEncoder or TransformerDecoder runs through tg::checkpoint
// (core/checkpoint.h), so the tape holds one entry per layer, named after it (encoder.layers.0),
// whose activations are recomputed in the backward instead of kept: less memory, about one more
// forward of time. Then the stack's final norm, as its forward. The values are the stack's
// forward's. On the checkpointed path the stack's own forward hooks do not run, and those inside
// a layer run twice a step (in the forward and in the recomputation), as with
// torch.utils.checkpoint.
//   src (B,T,E) -> checkpoint(layers.0) -> checkpoint(layers.1) -> ... -> norm (if any) -> (B,T,E)
// A decoder layer's checkpoint saves its inputs tgt and memory.
#include "nn/module.h"
#include "nn/transformer_decoder.h"
#include "nn/transformer_encoder.h"

namespace tg::nn {

// Checkpointing applies while the stack trains with grad mode on; evaluation and no-grad forwards,
// which have no backward to recompute for, are the stack's plain forward.
Tensor forward_checkpointed(const TransformerEncoder& encoder, const Tensor& src, const MhaOptions& masks = {});
Tensor forward_checkpointed(const TransformerDecoder& decoder, const Tensor& tgt, const Tensor& memory,
                            const DecoderMasks& masks = {});

}  // namespace tg::nn
