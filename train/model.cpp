#include "train/model.h"

#include <fmt/format.h>

#include "core/error.h"
#include "core/grad_mode.h"
#include "data/vocab.h"
#include "nn/init.h"
#include "ops/fused/linear/linear.h"
#include "ops/matmul/matmul.h"
#include "ops/squeeze/squeeze.h"
#include "ops/transpose/transpose.h"
#include "ops/unsqueeze/unsqueeze.h"
#include "train/config.h"
#include "train/registry/registry.h"

namespace tg::train {

namespace {

void require_in(const char* field, int64_t value, int64_t lo, int64_t hi) {
  if (value < lo || value > hi)
    throw Error("TransformerModel", fmt::format("{} must be in [{}, {}], got {}", field, lo, hi, value));
}

ModelConfig checked(const ModelConfig& c) {
  check_model_config(c);
  return c;
}

}  // namespace

void check_model_config(const ModelConfig& c) {
  require_in("vocab_size", c.vocab_size, 1, kMaxVocab);
  require_in("num_classes", c.num_classes, 1, kMaxVocab);
  require_in("max_len", c.max_len, 1, kMaxSequenceLength);
  require_in("d_model", c.d_model, 1, kMaxDModel);
  if (c.heads <= 0 || c.d_model % c.heads != 0)
    throw Error("TransformerModel", fmt::format("d_model ({}) must be a positive multiple of heads ({})", c.d_model,
                                                c.heads));
  require_in("layers", c.layers, 1, kMaxLayers);
  require_in("ff", c.ff, 1, kMaxFeedForward);
  if (!(c.dropout >= 0 && c.dropout <= kMaxDropout))
    throw Error("TransformerModel", fmt::format("dropout must be in [0, {}], got {}", kMaxDropout, c.dropout));
  if (!is_arch(c.arch))
    throw Error("TransformerModel", fmt::format("arch must be {}, got \"{}\"", one_of(arch_names()), c.arch));
  const Arch& arch = arch_named(c.arch);
  if (arch.causal && *arch.causal != c.causal)
    throw Error("TransformerModel", *arch.causal ? fmt::format("a {} model must be causal", arch.name)
                                                 : fmt::format("a {} model is not causal", arch.name));
  if (c.tie_weights && !arch.ties_weights)
    throw Error("TransformerModel", fmt::format("tie_weights needs arch {}, got {}",
                                                one_of(arch_names_where(&Arch::ties_weights)), c.arch));
  if (c.tie_weights && c.num_classes != c.vocab_size)
    throw Error("TransformerModel", fmt::format("tie_weights needs num_classes == vocab_size, got {} and {}",
                                                c.num_classes, c.vocab_size));
  require_in("numerics", c.numerics, kFirstNumerics, kLatestNumerics);
  if (c.max_len > kMaxPositionTable / c.d_model)
    throw Error("TransformerModel", fmt::format("max_len * d_model must be <= {}, got {} * {}", kMaxPositionTable,
                                                c.max_len, c.d_model));
}

int64_t parameter_count(const ModelConfig& c) {
  check_model_config(c);  // the limits keep every product below in range
  const int64_t E = c.d_model, F = c.ff;
  const int64_t attention = 4 * (E * E + E);        // q, k, v and out projections with biases
  const int64_t feed_forward = (E * F + F) + (F * E + E);
  const int64_t layer = attention + feed_forward + 2 * (2 * E);  // and two LayerNorms
  const int64_t embedding = c.vocab_size * E, final_norm = 2 * E;
  const Arch& arch = arch_named(c.arch);
  const int64_t positions = arch.learned_positions ? c.max_len * E : 0;  // the sinusoidal table is computed
  const int64_t head = c.tie_weights ? 0 : E * c.num_classes + c.num_classes;
  if (arch.decodes_sequences) {  // and per decoder layer a cross-attention and a third LayerNorm; two final norms
    const int64_t decoder_layer = layer + attention + 2 * E;
    return embedding + c.layers * (layer + decoder_layer) + 2 * final_norm + head;
  }
  return embedding + positions + c.layers * layer + final_norm + head;
}

void check_weights_fit(const ModelConfig& c, const NamedTensors& weights) {
  const int64_t expected = parameter_count(c);
  const auto require_shape = [&](const std::string& name, const Shape& shape) {
    for (const auto& [key, t] : weights)
      if (key == name) {
        if (t.shape() != shape)
          throw Error("TransformerModel", fmt::format("{} should be {} for the described model, got {}", name,
                                                      shape_str(shape), shape_str(t.shape())));
        return;
      }
    throw Error("TransformerModel", fmt::format("the weights have no {}", name));
  };
  require_shape("embedding.weight", {c.vocab_size, c.d_model});
  if (!c.tie_weights) require_shape("head.weight", {c.num_classes, c.d_model});
  int64_t stored = 0;
  for (const auto& [key, t] : weights) stored += t.numel();
  if (stored != expected)
    throw Error("TransformerModel",
                fmt::format("the described model (d_model {}, {} heads, {} layers, ff {}, vocabulary {}, {} classes) "
                            "has {} parameters, but the weights hold {} values", c.d_model, c.heads, c.layers, c.ff,
                            c.vocab_size, c.num_classes, expected, stored));
}

TransformerModel::TransformerModel(const ModelConfig& c) : Module("TransformerModel"), config(checked(c)) {
  const Arch& arch = arch_named(c.arch);
  if (arch.decodes_sequences)
    throw Error("TransformerModel", fmt::format("arch {} is {}: train::Seq2SeqModel (train/seq2seq_model.h)", arch.name,
                                                arch.is));
  const bool gpt = arch.learned_positions;  // GPT-2's embeddings
  // gpt: no padding row (a tied head would train it); the loss ignores pads either way
  embedding = register_module("embedding", std::make_shared<nn::Embedding>(c.vocab_size, c.d_model,
                                                                           gpt ? -1 : data::kPadId));
  if (gpt) nn::init::normal_(embedding->weight, 0, 0.02);  // GPT-2's token embedding
  pos_encoding = register_module(
      "pos_encoding", gpt ? std::shared_ptr<nn::PositionalEncoding>(
                                std::make_shared<nn::LearnedPositionalEncoding>(c.max_len, c.d_model))
                          : std::make_shared<nn::SinusoidalPositionalEncoding>(c.max_len, c.d_model));
  nn::EncoderLayerConfig layer{.d_model = c.d_model, .nhead = c.heads, .dim_feedforward = c.ff, .dropout = c.dropout,
                               .activation = arch.activation, .norm_first = true};
  encoder = register_module("encoder", std::make_shared<nn::TransformerEncoder>(layer, c.layers, /*final_norm=*/true));
  if (!c.tie_weights) head = register_module("head", std::make_shared<nn::Linear>(c.d_model, c.num_classes));
}

Tensor TransformerModel::logits(const Tensor& x) const {
  if (head) return head->forward(x);
  // (..., E) @ (E, V) -> (..., V): the embedding table as a bias-free head
  return is_composed() ? matmul(x, transpose(embedding->weight, 0, 1)) : linear(x, embedding->weight);
}

Tensor TransformerModel::forward(const Tensor& inputs, const Tensor& padding_mask) const {
  const ModuleScope in_module(path());
  const NumericsGuard numerics(config.numerics);
  // inputs (B,T), padding_mask (B,T) or undefined
  if (!inputs.defined() || inputs.dim() != 2 || inputs.dtype() != kI64)
    throw Error("TransformerModel", fmt::format("expected inputs (B,T) int64, got {}",
                                                inputs.defined() ? inputs.describe() : "undefined"));
  Tensor x = pos_encoding->forward_of_embedding(*embedding, inputs);  // (B,T,E)
  x = encoder->forward(x, nn::MhaOptions{.key_padding_mask = padding_mask, .is_causal = config.causal});
  Tensor out = logits(x);  // (B,T,C)
  if (has_forward_hooks()) run_forward_hooks({inputs, padding_mask}, {out});
  return out;
}

std::vector<Tensor> TransformerModel::attention_maps(const Tensor& tokens) {
  if (!tokens.defined() || tokens.dim() != 1 || tokens.dtype() != kI64 || tokens.numel() == 0)
    throw Error("TransformerModel", fmt::format("attention_maps: expected tokens (T,) int64 with T >= 1, got {}",
                                                tokens.defined() ? tokens.describe() : "undefined"));
  NoGradGuard no_grad;
  const NumericsGuard numerics(config.numerics);
  const bool was_training = is_training();
  eval();
  const nn::MhaOptions masks{.is_causal = config.causal};
  Tensor x = pos_encoding->forward_of_embedding(*embedding, unsqueeze(tokens, 0));  // (1,T,E)
  std::vector<Tensor> maps;
  for (const auto& layer : encoder->layers) {
    maps.push_back(squeeze(layer->self_attention_weights(x, masks), 0));  // (NH,T,T)
    x = layer->forward(x, masks);
  }
  train(was_training);
  return maps;
}

}  // namespace tg::train
