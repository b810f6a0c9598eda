#include "nn/transformer_encoder.h"

#include "nn/checkpointed_layers.h"
#include "nn/transformer_block.h"

namespace tg::nn {

TransformerEncoder::TransformerEncoder(const EncoderLayerConfig& layer, int64_t num_layers, bool final_norm)
    : Module("TransformerEncoder") {
  const auto make = [&] { return std::make_shared<EncoderLayer>(layer); };
  // registered once filled, so that its layers' tensors are named layers.N.*
  layer_list_ = register_module("layers", stack_layers<EncoderLayer>("TransformerEncoder", num_layers, make, layers));
  if (final_norm)
    norm = register_module("norm", std::make_shared<LayerNorm>(Shape{layer.d_model}, layer.layer_norm_eps));
}

Tensor TransformerEncoder::forward(const Tensor& src, const MhaOptions& masks) const {
  const ModuleScope in_module(path());
  Tensor x = src;  // (B,T,E)
  if (checkpoints_now(*this, checkpoint_layers))
    x = checkpointed_layers(layers, x, masks);
  else
    for (const auto& layer : layers) x = layer->forward(x, masks);
  if (norm) x = norm->forward(x);
  if (has_forward_hooks()) run_forward_hooks({src}, {x});
  return x;
}

}  // namespace tg::nn
