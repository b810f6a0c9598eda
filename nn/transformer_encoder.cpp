#include "nn/transformer_encoder.h"

#include <fmt/format.h>

namespace tg::nn {

TransformerEncoder::TransformerEncoder(const EncoderLayerConfig& layer, int64_t num_layers, bool final_norm)
    : Module("TransformerEncoder") {
  if (num_layers <= 0)
    throw Error("TransformerEncoder", fmt::format("num_layers must be positive, got {}", num_layers));
  auto list = std::make_shared<ModuleList>();
  for (int64_t i = 0; i < num_layers; ++i) layers.push_back(list->push_back(std::make_shared<EncoderLayer>(layer)));
  layer_list_ = register_module("layers", list);  // once filled, so that its layers' tensors are named layers.N.*
  if (final_norm)
    norm = register_module("norm", std::make_shared<LayerNorm>(Shape{layer.d_model}, layer.layer_norm_eps));
}

Tensor TransformerEncoder::forward(const Tensor& src, const MhaOptions& masks) const {
  Tensor x = src;
  for (const auto& layer : layers) x = layer->forward(x, masks);
  if (norm) x = norm->forward(x);
  if (has_forward_hooks()) run_forward_hooks({src}, {x});
  return x;
}

}  // namespace tg::nn
