#pragma once
// Transformer: an encoder-decoder (PyTorch 1.13's nn.Transformer, batch_first): the encoder reads
// the source, the decoder reads the target and attends to the encoder's output ("memory").
//   src (B,S,E) -> encoder (num_encoder_layers EncoderLayers, then encoder.norm) -> memory (B,S,E)
//   tgt (B,T,E), memory -> decoder (num_decoder_layers DecoderLayers, then decoder.norm) -> out (B,T,E)
// Both stacks end in a final LayerNorm, post-LN and pre-LN alike, as in PyTorch 1.13. For
// autoregressive decoding, run encoder->forward once and decoder->forward per step.
// Children: encoder (TransformerEncoder), decoder (TransformerDecoder): PyTorch's names
// encoder.layers.N.*, encoder.norm.*, decoder.layers.N.*, decoder.norm.* (state_dicts convert to
// and from PyTorch's with nn/pytorch_interop.h).
// Forward hooks: inputs {src, tgt}, outputs {out}.
#include <cstdint>
#include <memory>

#include "nn/decoder_layer.h"
#include "nn/module.h"
#include "nn/transformer_decoder.h"
#include "nn/transformer_encoder.h"

namespace tg::nn {

// nn.Transformer.forward's masks (true = masked out); see DecoderMasks for the decoder's.
struct TransformerMasks {
  Tensor src_mask{};                // encoder self-attention, (S,S), (B*NH,S,S) or broadcast to (B,NH,S,S):
                                    //   bool, or src's float dtype (added to the scores)
  Tensor tgt_mask{};                // decoder self-attention (T,T), likewise
  Tensor memory_mask{};             // decoder cross-attention (T,S), likewise
  Tensor src_key_padding_mask{};    // bool (B,S): true = that source position is padding
  Tensor tgt_key_padding_mask{};    // bool (B,T)
  Tensor memory_key_padding_mask{}; // bool (B,S): usually src_key_padding_mask again
  bool tgt_is_causal = false;       // target position i sees positions j <= i only

  DecoderMasks decoder() const;
};

class Transformer : public Module {
 public:
  // Both stacks' layers are built from `layer` (d_model, nhead, ..., norm_first).
  Transformer(const EncoderLayerConfig& layer, int64_t num_encoder_layers = 6, int64_t num_decoder_layers = 6);
  Tensor forward(const Tensor& src, const Tensor& tgt, const TransformerMasks& masks = {}) const;

  EncoderLayerConfig config;
  std::shared_ptr<TransformerEncoder> encoder;
  std::shared_ptr<TransformerDecoder> decoder;
};

}  // namespace tg::nn
