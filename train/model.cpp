#include "train/model.h"

#include <fmt/format.h>

#include "core/error.h"
#include "data/vocab.h"

namespace tg::train {

namespace {

ModelConfig checked(const ModelConfig& c) {
  if (c.vocab_size <= 0 || c.num_classes <= 0 || c.max_len <= 0)
    throw Error("TransformerModel", fmt::format("vocab_size, num_classes and max_len must be positive, got {}, {} "
                                                "and {}", c.vocab_size, c.num_classes, c.max_len));
  if (c.d_model <= 0 || c.heads <= 0 || c.d_model % c.heads != 0)
    throw Error("TransformerModel", fmt::format("d_model ({}) must be a positive multiple of heads ({})", c.d_model,
                                                c.heads));
  return c;
}

}  // namespace

TransformerModel::TransformerModel(const ModelConfig& c) : Module("TransformerModel"), config(checked(c)) {
  embedding = register_module("embedding", std::make_shared<nn::Embedding>(c.vocab_size, c.d_model, data::kPadId));
  pos_encoding = register_module("pos_encoding", std::make_shared<nn::SinusoidalPositionalEncoding>(c.max_len, c.d_model));
  nn::EncoderLayerConfig layer{.d_model = c.d_model, .nhead = c.heads, .dim_feedforward = c.ff, .dropout = c.dropout,
                               .norm_first = true};
  encoder = register_module("encoder", std::make_shared<nn::TransformerEncoder>(layer, c.layers, /*final_norm=*/true));
  head = register_module("head", std::make_shared<nn::Linear>(c.d_model, c.num_classes));
}

Tensor TransformerModel::forward(const Tensor& inputs, const Tensor& padding_mask) const {
  // inputs (B,T), padding_mask (B,T) or undefined
  if (!inputs.defined() || inputs.dim() != 2 || inputs.dtype() != kI64)
    throw Error("TransformerModel", fmt::format("expected inputs (B,T) int64, got {}",
                                                inputs.defined() ? inputs.describe() : "undefined"));
  Tensor x = pos_encoding->forward(embedding->forward(inputs));  // (B,T,E)
  x = encoder->forward(x, nn::MhaOptions{.key_padding_mask = padding_mask, .is_causal = config.causal});
  return head->forward(x);  // (B,T,C)
}

}  // namespace tg::train
