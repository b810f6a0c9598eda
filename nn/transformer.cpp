#include "nn/transformer.h"

#include <fmt/format.h>

#include "nn/transformer_block.h"

namespace tg::nn {

namespace {
constexpr const char* kTransformerModule = "Transformer";
}  // namespace

DecoderMasks TransformerMasks::decoder() const {
  return {tgt_mask, memory_mask, tgt_key_padding_mask, memory_key_padding_mask, tgt_is_causal};
}

Transformer::Transformer(const EncoderLayerConfig& layer, int64_t num_encoder_layers, int64_t num_decoder_layers)
    : Module(kTransformerModule), config(layer) {
  encoder = register_module("encoder", std::make_shared<TransformerEncoder>(layer, num_encoder_layers, true));
  decoder = register_module("decoder", std::make_shared<TransformerDecoder>(layer, num_decoder_layers, true));
}

Tensor Transformer::forward(const Tensor& src, const Tensor& tgt, const TransformerMasks& masks) const {
  const ModuleScope in_module(path());
  check_floating(src, kTransformerModule, "src");
  check_floating(tgt, kTransformerModule, "tgt");
  const int64_t E = config.d_model;
  if (src.dim() != 3 || tgt.dim() != 3 || src.size(2) != E || tgt.size(2) != E || src.size(0) != tgt.size(0))
    throw Error(kTransformerModule, fmt::format("expected src (B,S,{0}) and tgt (B,T,{0}) with the same B, got src {1} and tgt "
                                     "{2}", E, shape_str(src.shape()), shape_str(tgt.shape())));
  if (tgt.dtype() != src.dtype() || tgt.device() != src.device())
    throw Error(kTransformerModule, fmt::format("tgt must have src's dtype and device ({} {}), got {} {}", dtype_name(src.dtype()),
                                     src.device().str(), dtype_name(tgt.dtype()), tgt.device().str()));
  const int64_t B = src.size(0), S = src.size(1);
  check_attention_mask(kTransformerModule, "src_mask", masks.src_mask, src, {B, config.nhead, S, S}, "S,S");
  check_key_padding_mask(kTransformerModule, "src_key_padding_mask", masks.src_key_padding_mask, B, S, "B,S");
  const DecoderMasks decoder_masks = masks.decoder();
  check_decoder_inputs(kTransformerModule, tgt, src, decoder_masks, E, config.nhead);  // memory has src's shape

  MhaOptions encoder_masks{.key_padding_mask = masks.src_key_padding_mask};
  set_attention_mask(encoder_masks, masks.src_mask);
  const Tensor memory = encoder->forward(src, encoder_masks);  // (B,S,E)
  Tensor out = decoder->forward(tgt, memory, decoder_masks);   // (B,T,E)
  if (has_forward_hooks()) run_forward_hooks({src, tgt}, {out});
  return out;
}

}  // namespace tg::nn
