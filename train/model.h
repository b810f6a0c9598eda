#pragma once
// TransformerModel: the model every task trains (per-position classification), in one of two
// architectures (ModelConfig::arch).
//   B batch, T positions, V input vocabulary, C output classes, E = d_model
//   inputs (B,T) int64 token ids, padding_mask (B,T) bool (true = pad) -> logits (B,T,C)
//
// "encoder" (the default; every task):
//   x      = embedding(inputs) + pos_encoding[0:T]       (B,T,E)   <pad> (id 0) embeds to zeros
//   x      = encoder(x, key_padding_mask, is_causal)     (B,T,E)   pre-LN relu layers, final LayerNorm
//   logits = head(x)                                     (B,T,C)   Linear(E, C)
// "gpt" (decoder-only, GPT-2's shape; causal, the lm task):
//   x      = embedding(inputs) + pos_encoding[0:T]       (B,T,E)   learned positions, both tables N(0, 0.02^2)
//   x      = encoder(x, key_padding_mask, is_causal)     (B,T,E)   pre-LN gelu blocks, final LayerNorm
//   logits = head(x)                                     (B,T,C)   Linear(E, C), or with tie_weights
//          | x @ embedding.weight^T                                the embedding itself (no bias; C == V)
// A GPT block is a causal pre-LN encoder layer (no cross-attention), so both share
// nn::TransformerEncoder; train/kv_cache.h runs either causal model one token at a time.
//
// The causal flag (the character language model) lets position t attend to positions <= t only;
// the padding mask keeps every position from attending to pads. Pads still get logits, which
// the loss ignores (their target is kIgnoreIndex).
//
// Children (state_dict names): embedding, pos_encoding (encoder: sinusoidal, no parameters; gpt:
// pos_encoding.weight), encoder (encoder.layers.N.*, encoder.norm), head (none when tied).
// set_composed(true) (nn/module.h) runs it op by op, without fused ops: `tapegrad train
// --composed` (TrainConfig::composed) and `tapegrad eval --composed`. Forward hooks: inputs
// {inputs, padding_mask}, outputs {logits}.
// set_checkpoint_activations(true): while training with grad mode on, each encoder layer runs
// through tg::checkpoint (nn::TransformerEncoder::checkpoint_layers), its activations recomputed in
// the backward instead of kept: `tapegrad train --checkpoint-activations`.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/numerics.h"
#include "nn/embedding.h"
#include "nn/linear.h"
#include "nn/module.h"
#include "nn/positional_encoding.h"
#include "nn/transformer_encoder.h"

namespace tg::train {

struct ModelConfig {
  int64_t vocab_size = 0;   // V: input token ids are in [0, V)
  int64_t num_classes = 0;  // C: output classes
  int64_t max_len = 0;      // the longest sequence the positional table covers
  int64_t d_model = 64;
  int64_t heads = 4;
  int64_t layers = 2;
  int64_t ff = 256;         // feed-forward width
  double dropout = 0;
  bool causal = false;      // true: position t sees positions <= t only
  std::string arch = "encoder";  // "encoder" or "gpt" (above); "seq2seq": train::Seq2SeqModel
  bool tie_weights = false;      // gpt: the head is the embedding (needs num_classes == vocab_size)
  // The numerics version the model's forward rounds with (core/numerics.h): the run's config's.
  // Not in the "model" metadata of a checkpoint: the config beside it holds it.
  int64_t numerics = kLatestNumerics;
  bool operator==(const ModelConfig&) const = default;
};

// The largest positional table (max_len * d_model values) a model may have: it is computed,
// not stored, so a checkpoint's size does not bound it.
inline constexpr int64_t kMaxPositionTable = int64_t{1} << 24;

// Throws tg::Error("TransformerModel", ...) naming the first field that is out of range: the
// sizes must be positive and within the limits of train/config.h and kMaxPositionTable; arch
// "encoder", "gpt" or "seq2seq", a gpt model causal (a seq2seq one not), tie_weights only for gpt
// with num_classes == vocab_size.
void check_model_config(const ModelConfig& config);

// The number of parameters the model `config` describes (either class), computed without building it.
int64_t parameter_count(const ModelConfig& config);

// Checks, before any memory is allocated for the model, that `weights` (a state_dict as a
// checkpoint stores it) are the size of the model `config` describes: the embedding and the
// head (unless tied) have its shapes, and the weights hold parameter_count(config) values in all.
void check_weights_fit(const ModelConfig& config, const NamedTensors& weights);

class TransformerModel : public nn::Module {
 public:
  explicit TransformerModel(const ModelConfig& config);  // parameters drawn from the global generator
  Tensor forward(const Tensor& inputs, const Tensor& padding_mask = {}) const;
  // The head: x (..., E) -> logits (..., C), a Linear or the tied embedding.
  Tensor logits(const Tensor& x) const;
  // Every layer's self-attention weights for one sequence `tokens` (T,) int64: a (NH,T,T) tensor
  // per layer (query rows, key columns; each row sums to 1), computed in evaluation mode (no
  // dropout) without recording. The model's training mode is left as it was.
  std::vector<Tensor> attention_maps(const Tensor& tokens);
  void set_checkpoint_activations(bool on) { encoder->checkpoint_layers = on; }  // above

  ModelConfig config;
  std::shared_ptr<nn::Embedding> embedding;
  std::shared_ptr<nn::PositionalEncoding> pos_encoding;  // sinusoidal (encoder) or learned (gpt)
  std::shared_ptr<nn::TransformerEncoder> encoder;
  std::shared_ptr<nn::Linear> head;  // null when tie_weights
};

}  // namespace tg::train
