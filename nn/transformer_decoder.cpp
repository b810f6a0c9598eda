#include "nn/transformer_decoder.h"

#include "nn/checkpointed_layers.h"
#include "nn/transformer_block.h"

namespace tg::nn {

namespace {
constexpr const char* kTransformerDecoderModule = "TransformerDecoder";
}  // namespace

TransformerDecoder::TransformerDecoder(const DecoderLayerConfig& layer, int64_t num_layers, bool final_norm)
    : Module(kTransformerDecoderModule) {
  const auto make = [&] { return std::make_shared<DecoderLayer>(layer); };
  layer_list_ = register_module("layers", stack_layers<DecoderLayer>(kTransformerDecoderModule, num_layers, make, layers));
  if (final_norm)
    norm = register_module("norm", std::make_shared<LayerNorm>(Shape{layer.d_model}, layer.layer_norm_eps));
}

Tensor TransformerDecoder::forward(const Tensor& tgt, const Tensor& memory, const DecoderMasks& masks) const {
  const ModuleScope in_module(path());
  const DecoderLayerConfig& config = layers.front()->config;
  check_decoder_inputs(kTransformerDecoderModule, tgt, memory, masks, config.d_model, config.nhead);
  Tensor x = tgt;  // (B,T,E)
  if (checkpoints_now(*this, checkpoint_layers))
    x = checkpointed_layers(layers, x, memory, masks);
  else
    for (const auto& layer : layers) x = layer->forward(x, memory, masks);
  if (norm) x = norm->forward(x);
  if (has_forward_hooks()) run_forward_hooks({tgt, memory}, {x});
  return x;
}

}  // namespace tg::nn
