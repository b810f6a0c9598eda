#pragma once
// DecoderLayer: one Transformer decoder block with PyTorch's nn.TransformerDecoderLayer semantics
// (batch_first): self-attention over the target, cross-attention from the target to the encoder's
// output ("memory"), feed-forward.
//   tgt (B,T,E), memory (B,S,E) -> out (B,T,E)
//   sa(x)  = dropout1(self_attn(x, x, x, tgt masks).output)
//   mha(x) = dropout2(multihead_attn(x, memory, memory, memory masks).output)
//   ff(x)  = dropout3(linear2(dropout(activation(linear1(x)))))   (relu -> dropout fused as in EncoderLayer)
//   post-LN (norm_first = false, the default):
//     x = norm1(x + sa(x));  x = norm2(x + mha(x));  x = norm3(x + ff(x))
//   pre-LN (norm_first = true):
//     x = x + sa(norm1(x));  x = x + mha(norm2(x));  x = x + ff(norm3(x))
//   (each x + dropout_k(...) one dropout_add op, or with its norm one dropout_add_layer_norm op
//   post-LN, as in EncoderLayer)
// Children, in PyTorch's order and with its names: self_attn, multihead_attn, linear1, dropout,
// linear2, norm1, norm2, norm3, dropout1, dropout2, dropout3 (state_dicts convert to and from
// PyTorch's with nn/pytorch_interop.h).
// Forward hooks: inputs {tgt, memory}, outputs {out}.
#include <cstdint>
#include <memory>

#include "nn/encoder_layer.h"

namespace tg::nn {

using DecoderLayerConfig = EncoderLayerConfig;  // the same fields and PyTorch defaults

// The masks of a decoder, as PyTorch names them (true = masked out, as everywhere in tapegrad; the
// default member initializers let callers write DecoderMasks{.tgt_is_causal = true}):
struct DecoderMasks {
  Tensor tgt_mask{};                // self-attention, (T,T), (B*NH,T,T) or broadcast to (B,NH,T,T):
                                    //   bool, or tgt's float dtype (added to the scores)
  Tensor memory_mask{};             // cross-attention, (T,S), (B*NH,T,S) or broadcast to (B,NH,T,S), likewise
  Tensor tgt_key_padding_mask{};    // bool (B,T): true = that target position is padding
  Tensor memory_key_padding_mask{}; // bool (B,S): true = that memory position is padding
  bool tgt_is_causal = false;       // target position i sees positions j <= i only (with tgt_mask: both apply)
};

// Throws tg::Error(module, ...) naming the argument and the expected shape unless tgt is a float
// (B,T,d_model), memory (B,S,d_model) of tgt's dtype and device, and every mask fits (DecoderMasks).
void check_decoder_inputs(const char* module, const Tensor& tgt, const Tensor& memory, const DecoderMasks& masks,
                          int64_t d_model, int64_t nhead);

class DecoderLayer : public Module {
 public:
  explicit DecoderLayer(const DecoderLayerConfig& config);
  Tensor forward(const Tensor& tgt, const Tensor& memory, const DecoderMasks& masks = {}) const;

  DecoderLayerConfig config;
  std::shared_ptr<MultiHeadAttention> self_attn, multihead_attn;
  std::shared_ptr<Linear> linear1;
  std::shared_ptr<Dropout> dropout;
  std::shared_ptr<Linear> linear2;
  std::shared_ptr<LayerNorm> norm1, norm2, norm3;
  std::shared_ptr<Dropout> dropout1, dropout2, dropout3;
};

}  // namespace tg::nn
