#include "train/seq2seq_model.h"

#include <fmt/format.h>

#include "core/error.h"
#include "core/numerics.h"
#include "data/vocab.h"
#include "train/registry/registry.h"

namespace tg::train {

namespace {

constexpr const char* kSeq2SeqModelModule = "Seq2SeqModel";

ModelConfig checked(const ModelConfig& c) {
  check_model_config(c);
  if (!arch_named(c.arch).decodes_sequences)
    throw Error(kSeq2SeqModelModule, fmt::format("needs arch {}, got {}", one_of(arch_names_where(&Arch::decodes_sequences)),
                                     c.arch));
  if (c.num_classes != c.vocab_size)
    throw Error(kSeq2SeqModelModule, fmt::format("input and output share a vocabulary: num_classes must be vocab_size ({}), got {}",
                                     c.vocab_size, c.num_classes));
  return c;
}

void check_ids(const char* name, const Tensor& ids) {
  if (!ids.defined() || ids.dim() != 2 || ids.dtype() != kI64)
    throw Error(kSeq2SeqModelModule,
                fmt::format("expected {} (B,N) int64, got {}", name, ids.defined() ? ids.describe() : "undefined"));
}

}  // namespace

Seq2SeqModel::Seq2SeqModel(const ModelConfig& c) : Module(kSeq2SeqModelModule), config(checked(c)) {
  embedding = register_module("embedding", std::make_shared<nn::Embedding>(c.vocab_size, c.d_model, data::kPadId));
  pos_encoding =
      register_module("pos_encoding", std::make_shared<nn::SinusoidalPositionalEncoding>(c.max_len, c.d_model));
  const nn::EncoderLayerConfig layer{.d_model = c.d_model, .nhead = c.heads, .dim_feedforward = c.ff,
                                     .dropout = c.dropout, .activation = nn::Activation::relu, .norm_first = true};
  transformer = register_module("transformer", std::make_shared<nn::Transformer>(layer, c.layers, c.layers));
  head = register_module("head", std::make_shared<nn::Linear>(c.d_model, c.num_classes));
}

void Seq2SeqModel::set_checkpoint_activations(bool on) {
  transformer->encoder->checkpoint_layers = on;
  transformer->decoder->checkpoint_layers = on;
}

Tensor Seq2SeqModel::encode(const Tensor& src, const Tensor& src_padding) const {
  check_ids("src", src);
  const NumericsGuard numerics(config.numerics);
  const Tensor x = pos_encoding->forward_of_embedding(*embedding, src);  // (B,S,E)
  return transformer->encoder->forward(x, nn::MhaOptions{.key_padding_mask = src_padding});
}

Tensor Seq2SeqModel::decode(const Tensor& tgt_in, const Tensor& memory, const Tensor& src_padding,
                            const Tensor& tgt_padding) const {
  check_ids("tgt_in", tgt_in);
  const NumericsGuard numerics(config.numerics);
  const Tensor y = pos_encoding->forward_of_embedding(*embedding, tgt_in);  // (B,T,E)
  const nn::DecoderMasks masks{.tgt_key_padding_mask = tgt_padding, .memory_key_padding_mask = src_padding,
                               .tgt_is_causal = true};
  return head->forward(transformer->decoder->forward(y, memory, masks));  // (B,T,V)
}

Tensor Seq2SeqModel::forward(const Tensor& src, const Tensor& src_padding, const Tensor& tgt_in,
                             const Tensor& tgt_padding) const {
  return decode(tgt_in, encode(src, src_padding), src_padding, tgt_padding);
}

std::unique_ptr<Seq2SeqModel> load_seq2seq_model(const Checkpoint& c) {
  auto model = std::make_unique<Seq2SeqModel>(c.model_config);
  model->load_state_dict(c.model);
  model->eval();
  return model;
}

}  // namespace tg::train
