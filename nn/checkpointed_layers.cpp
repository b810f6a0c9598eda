#include "nn/checkpointed_layers.h"

#include <memory>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "core/checkpoint.h"
#include "core/grad_mode.h"

namespace tg::nn {

namespace {

// The layer's dotted name, read off its first parameter's (encoder.layers.0.self_attn.in_proj_weight
// -> encoder.layers.0): the name the model gave it, without a walk of the module tree.
std::string layer_name(int64_t index, const TensorList& params) {
  const std::string own = fmt::format("layers.{}", index);
  if (params.empty()) return own;
  const std::string& param = params.front().name();
  const size_t at = param.find(own + ".");
  return at == std::string::npos ? own : param.substr(0, at + own.size());
}

// x through each layer, layer_forward(layer, inputs) -> output, as one checkpoint each: the
// running x is the layer's first input, `others` the rest.
template <class Layer, class Forward>
Tensor through_layers(const std::vector<std::shared_ptr<Layer>>& layers, Tensor x, const TensorList& others,
                      const Forward& layer_forward) {
  for (size_t i = 0; i < layers.size(); ++i) {
    const auto fn = [layer = layers[i], layer_forward](const TensorList& in) -> TensorList {
      return {layer_forward(*layer, in)};
    };
    TensorList inputs{x};
    inputs.insert(inputs.end(), others.begin(), others.end());
    const TensorList params = layers[i]->parameters();
    x = checkpoint(fn, inputs, params, layer_name(static_cast<int64_t>(i), params))[0];
  }
  return x;
}

}  // namespace

bool checkpoints_now(const Module& stack, bool checkpoint_layers) {
  return checkpoint_layers && stack.is_training() && GradMode::enabled();
}

Tensor checkpointed_layers(const std::vector<std::shared_ptr<EncoderLayer>>& layers, const Tensor& src,
                           const MhaOptions& masks) {
  return through_layers(layers, src, {}, [masks](const EncoderLayer& layer, const TensorList& in) {
    return layer.forward(in[0], masks);
  });
}

Tensor checkpointed_layers(const std::vector<std::shared_ptr<DecoderLayer>>& layers, const Tensor& tgt,
                           const Tensor& memory, const DecoderMasks& masks) {
  return through_layers(layers, tgt, {memory}, [masks](const DecoderLayer& layer, const TensorList& in) {
    return layer.forward(in[0], in[1], masks);
  });
}

}  // namespace tg::nn
