#include "nn/encoder_layer.h"

#include <fmt/format.h>

#include "nn/transformer_block.h"

namespace tg::nn {

EncoderLayer::EncoderLayer(const EncoderLayerConfig& config) : Module("EncoderLayer"), config(config) {
  const int64_t E = config.d_model;
  if (E <= 0 || config.nhead <= 0 || config.dim_feedforward <= 0)
    throw Error("EncoderLayer", fmt::format("d_model, nhead and dim_feedforward must be positive, got {}, {} and {}",
                                            E, config.nhead, config.dim_feedforward));
  self_attn = register_module("self_attn", std::make_shared<MultiHeadAttention>(E, config.nhead, config.dropout));
  linear1 = register_module("linear1", std::make_shared<Linear>(E, config.dim_feedforward));
  dropout = register_module("dropout", std::make_shared<Dropout>(config.dropout));
  linear2 = register_module("linear2", std::make_shared<Linear>(config.dim_feedforward, E));
  norm1 = register_module("norm1", std::make_shared<LayerNorm>(Shape{E}, config.layer_norm_eps));
  norm2 = register_module("norm2", std::make_shared<LayerNorm>(Shape{E}, config.layer_norm_eps));
  dropout1 = register_module("dropout1", std::make_shared<Dropout>(config.dropout));
  dropout2 = register_module("dropout2", std::make_shared<Dropout>(config.dropout));
}

EncoderLayer::EncoderLayer(int64_t d_model, int64_t nhead, int64_t dim_feedforward, double dropout,
                           Activation activation, double layer_norm_eps, bool norm_first)
    : EncoderLayer(EncoderLayerConfig{d_model, nhead, dim_feedforward, dropout, activation, layer_norm_eps,
                                      norm_first}) {}

LinearOutput EncoderLayer::sa_block(const Tensor& x, const MhaOptions& masks) const {
  return attention_block(*self_attn, x, x, masks);
}

LinearOutput EncoderLayer::ff_block(const Tensor& x) const {
  const bool fuse = config.fuse_relu_dropout && !is_composed();
  return feed_forward_block(x, *linear1, config.activation, *dropout, fuse, *linear2);
}

Tensor EncoderLayer::forward(const Tensor& src, const MhaOptions& masks) const {
  const ModuleScope in_module(path());
  Tensor x = src;  // (B,T,E)
  x = residual(x, *norm1, config.norm_first, *dropout1, [&](const Tensor& h) { return sa_block(h, masks); });
  x = residual(x, *norm2, config.norm_first, *dropout2, [&](const Tensor& h) { return ff_block(h); });
  if (has_forward_hooks()) run_forward_hooks({src}, {x});
  return x;
}

Tensor EncoderLayer::self_attention_weights(const Tensor& src, const MhaOptions& masks) const {
  const Tensor x = config.norm_first ? norm1->forward(src) : src;
  MhaOptions options = masks;
  options.need_weights = true;
  return self_attn->forward(x, x, x, options).weights;
}

}  // namespace tg::nn
