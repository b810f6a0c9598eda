#pragma once
// TransformerEncoder: num_layers EncoderLayers applied in turn, then an optional final LayerNorm
// (PyTorch's nn.TransformerEncoder; a pre-LN stack usually wants final_norm).
//   src (B,T,E) -> layers.0 -> layers.1 -> ... -> norm (if final_norm) -> out (B,T,E)
// Children: layers (a ModuleList: layers.0, layers.1, ...), norm. Each layer is built from
// `layer` and initialised on its own; PyTorch deep-copies one layer, so its layers start equal.
// checkpoint_layers: while training with grad mode on, each layer runs through tg::checkpoint
// (nn/checkpointed_layers.h): one tape entry per layer, its activations recomputed in the backward
// instead of kept (less memory, about one more forward of time; the same values).
// Forward hooks: inputs {src}, outputs {out}.
#include <cstdint>
#include <memory>
#include <vector>

#include "nn/encoder_layer.h"
#include "nn/layer_norm.h"
#include "nn/module.h"
#include "nn/module_list.h"

namespace tg::nn {

class TransformerEncoder : public Module {
 public:
  TransformerEncoder(const EncoderLayerConfig& layer, int64_t num_layers, bool final_norm = false);
  // The same masks for every layer (see EncoderLayer::forward).
  Tensor forward(const Tensor& src, const MhaOptions& masks = {}) const;

  std::vector<std::shared_ptr<EncoderLayer>> layers;
  std::shared_ptr<LayerNorm> norm;  // null without final_norm
  bool checkpoint_layers = false;    // above

 private:
  std::shared_ptr<ModuleList> layer_list_;  // registers `layers` as the child "layers"
};

}  // namespace tg::nn
