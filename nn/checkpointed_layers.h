#pragma once
// Activation checkpointing of a Transformer stack's layers (torch.utils.checkpoint applied per
// layer): what TransformerEncoder and TransformerDecoder do with checkpoint_layers set, while they
// train with grad mode on. Each layer runs through tg::checkpoint (core/checkpoint.h), so the tape
// holds one entry per layer, named after it (encoder.layers.0), whose activations are recomputed
// in the backward instead of kept: less memory, about one more forward of time, the same values.
// The forward hooks of the modules inside a layer run twice a step (in the forward and in the
// recomputation), as with torch.utils.checkpoint.
//   x (B,T,E) -> checkpoint(layers.0) -> checkpoint(layers.1) -> ... -> (B,T,E)
// A decoder layer's checkpoint saves its inputs tgt and memory.
#include <memory>
#include <vector>

#include "nn/decoder_layer.h"
#include "nn/encoder_layer.h"
#include "nn/module.h"

namespace tg::nn {

// Whether a stack with checkpoint_layers set checkpoints now: while it trains with grad mode on.
// Evaluation and no-grad forwards have no backward to recompute for.
bool checkpoints_now(const Module& stack, bool checkpoint_layers);

Tensor checkpointed_layers(const std::vector<std::shared_ptr<EncoderLayer>>& layers, const Tensor& src,
                           const MhaOptions& masks);
Tensor checkpointed_layers(const std::vector<std::shared_ptr<DecoderLayer>>& layers, const Tensor& tgt,
                           const Tensor& memory, const DecoderMasks& masks);

}  // namespace tg::nn
