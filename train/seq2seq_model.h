#pragma once
// Seq2SeqModel: the encoder-decoder that arch seq2seq trains (nn::Transformer with embeddings and
// an output head). Input and output share one vocabulary, so one embedding serves both sides.
//   B batch, S source positions, T target positions, V vocabulary, E = d_model
//   src (B,S) int64, src_padding (B,S) bool (true = pad)
//   tgt_in (B,T) int64 (<bos> y1 .. y(T-1)), tgt_padding (B,T) bool or undefined
//
//   memory = encoder(embedding(src) + pos_encoding[0:S], src_padding)            (B,S,E)
//   y      = decoder(embedding(tgt_in) + pos_encoding[0:T], memory,                (B,T,E)
//                    causal, tgt_padding, memory padding = src_padding)
//   logits = head(y)                                                             (B,T,V)
// Both stacks: `layers` pre-LN relu layers each, then a final LayerNorm; the positional encoding is
// sinusoidal (no parameters); <pad> (id 0) embeds to zeros.
//
// Children (state_dict names): embedding, pos_encoding, transformer (transformer.encoder.layers.N.*,
// transformer.encoder.norm, transformer.decoder.layers.N.*, transformer.decoder.norm), head. The
// ModelConfig is train/model.h's with arch "seq2seq" (num_classes == vocab_size, causal false).
#include <memory>

#include "nn/embedding.h"
#include "nn/linear.h"
#include "nn/module.h"
#include "nn/positional_encoding.h"
#include "nn/transformer.h"
#include "train/checkpoint.h"
#include "train/model.h"

namespace tg::train {

class Seq2SeqModel : public nn::Module {
 public:
  explicit Seq2SeqModel(const ModelConfig& config);  // parameters drawn from the global generator
  // Teacher forcing: every target position at once -> logits (B,T,V).
  Tensor forward(const Tensor& src, const Tensor& src_padding, const Tensor& tgt_in,
                 const Tensor& tgt_padding = {}) const;
  // The two halves, for decoding one token at a time: encode once, then decode each prefix.
  Tensor encode(const Tensor& src, const Tensor& src_padding) const;  // (B,S,E)
  Tensor decode(const Tensor& tgt_in, const Tensor& memory, const Tensor& src_padding,
                const Tensor& tgt_padding = {}) const;                // (B,T,V)
  // While training with grad mode on, each encoder and decoder layer through tg::checkpoint
  // (checkpoint_layers of the stacks): `tapegrad train --checkpoint-activations`.
  void set_checkpoint_activations(bool on);

  ModelConfig config;
  std::shared_ptr<nn::Embedding> embedding;
  std::shared_ptr<nn::SinusoidalPositionalEncoding> pos_encoding;
  std::shared_ptr<nn::Transformer> transformer;
  std::shared_ptr<nn::Linear> head;
};

// A seq2seq checkpoint's model, with its weights (in evaluation mode).
std::unique_ptr<Seq2SeqModel> load_seq2seq_model(const Checkpoint& checkpoint);

}  // namespace tg::train
