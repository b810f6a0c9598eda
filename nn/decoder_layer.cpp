#include "nn/decoder_layer.h"

#include <fmt/format.h>

#include "nn/transformer_block.h"

namespace tg::nn {

namespace {

constexpr const char* kDecoderLayerModule = "DecoderLayer";

MhaOptions self_attention_masks(const DecoderMasks& masks) {
  MhaOptions options{.key_padding_mask = masks.tgt_key_padding_mask, .is_causal = masks.tgt_is_causal};
  set_attention_mask(options, masks.tgt_mask);
  return options;
}

MhaOptions cross_attention_masks(const DecoderMasks& masks) {
  MhaOptions options{.key_padding_mask = masks.memory_key_padding_mask};
  set_attention_mask(options, masks.memory_mask);
  return options;
}

}  // namespace

void check_decoder_inputs(const char* module, const Tensor& tgt, const Tensor& memory, const DecoderMasks& masks,
                          int64_t d_model, int64_t nhead) {
  check_floating(tgt, module, "tgt");
  check_floating(memory, module, "memory");
  const int64_t E = d_model;
  if (tgt.dim() != 3 || memory.dim() != 3 || tgt.size(2) != E || memory.size(2) != E || memory.size(0) != tgt.size(0))
    throw Error(module, fmt::format("expected tgt (B,T,{0}) and memory (B,S,{0}) with the same B, got tgt {1} and "
                                    "memory {2}", E, shape_str(tgt.shape()), shape_str(memory.shape())));
  if (memory.dtype() != tgt.dtype() || memory.device() != tgt.device())
    throw Error(module, fmt::format("memory must have tgt's dtype and device ({} {}), got {} {}",
                                    dtype_name(tgt.dtype()), tgt.device().str(), dtype_name(memory.dtype()),
                                    memory.device().str()));
  const int64_t B = tgt.size(0), T = tgt.size(1), S = memory.size(1);
  check_attention_mask(module, "tgt_mask", masks.tgt_mask, tgt, {B, nhead, T, T}, "T,T");
  check_attention_mask(module, "memory_mask", masks.memory_mask, tgt, {B, nhead, T, S}, "T,S");
  check_key_padding_mask(module, "tgt_key_padding_mask", masks.tgt_key_padding_mask, B, T, "B,T");
  check_key_padding_mask(module, "memory_key_padding_mask", masks.memory_key_padding_mask, B, S, "B,S");
}

DecoderLayer::DecoderLayer(const DecoderLayerConfig& config) : Module(kDecoderLayerModule), config(config) {
  const int64_t E = config.d_model;
  if (E <= 0 || config.nhead <= 0 || config.dim_feedforward <= 0)
    throw Error(kDecoderLayerModule, fmt::format("d_model, nhead and dim_feedforward must be positive, got {}, {} and {}", E,
                                     config.nhead, config.dim_feedforward));
  self_attn = register_module("self_attn", std::make_shared<MultiHeadAttention>(E, config.nhead, config.dropout));
  multihead_attn =
      register_module("multihead_attn", std::make_shared<MultiHeadAttention>(E, config.nhead, config.dropout));
  linear1 = register_module("linear1", std::make_shared<Linear>(E, config.dim_feedforward));
  dropout = register_module("dropout", std::make_shared<Dropout>(config.dropout));
  linear2 = register_module("linear2", std::make_shared<Linear>(config.dim_feedforward, E));
  auto layer_norm = [&] { return std::make_shared<LayerNorm>(Shape{E}, config.layer_norm_eps); };
  norm1 = register_module("norm1", layer_norm());
  norm2 = register_module("norm2", layer_norm());
  norm3 = register_module("norm3", layer_norm());
  dropout1 = register_module("dropout1", std::make_shared<Dropout>(config.dropout));
  dropout2 = register_module("dropout2", std::make_shared<Dropout>(config.dropout));
  dropout3 = register_module("dropout3", std::make_shared<Dropout>(config.dropout));
}

Tensor DecoderLayer::forward(const Tensor& tgt, const Tensor& memory, const DecoderMasks& masks) const {
  const ModuleScope in_module(path());
  check_decoder_inputs(kDecoderLayerModule, tgt, memory, masks, config.d_model, config.nhead);
  const MhaOptions self_masks = self_attention_masks(masks), cross_masks = cross_attention_masks(masks);
  const bool norm_first = config.norm_first, fuse = config.fuse_relu_dropout && !is_composed();
  Tensor x = tgt;  // (B,T,E)
  x = residual(x, *norm1, norm_first, *dropout1,
               [&](const Tensor& h) { return attention_block(*self_attn, h, h, self_masks); });
  x = residual(x, *norm2, norm_first, *dropout2,
               [&](const Tensor& h) { return attention_block(*multihead_attn, h, memory, cross_masks); });
  x = residual(x, *norm3, norm_first, *dropout3, [&](const Tensor& h) {
    return feed_forward_block(h, *linear1, config.activation, *dropout, fuse, *linear2);
  });
  if (has_forward_hooks()) run_forward_hooks({tgt, memory}, {x});
  return x;
}

}  // namespace tg::nn
