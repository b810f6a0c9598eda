#pragma once
// TransformerDecoder: num_layers DecoderLayers applied in turn, each attending to the same memory,
// then an optional final LayerNorm (PyTorch's nn.TransformerDecoder).
//   tgt (B,T,E), memory (B,S,E) -> layers.0 -> layers.1 -> ... -> norm (if final_norm) -> out (B,T,E)
// Children: layers (a ModuleList: layers.0, layers.1, ...), norm. Each layer is built from
// `layer` and initialised on its own (as TransformerEncoder's).
// checkpoint_layers: as TransformerEncoder's (each layer's checkpoint saves its inputs tgt and memory).
// Forward hooks: inputs {tgt, memory}, outputs {out}.
#include <cstdint>
#include <memory>
#include <vector>

#include "nn/decoder_layer.h"
#include "nn/layer_norm.h"
#include "nn/module.h"
#include "nn/module_list.h"

namespace tg::nn {

class TransformerDecoder : public Module {
 public:
  TransformerDecoder(const DecoderLayerConfig& layer, int64_t num_layers, bool final_norm = false);
  // The same masks for every layer (see DecoderLayer::forward).
  Tensor forward(const Tensor& tgt, const Tensor& memory, const DecoderMasks& masks = {}) const;

  std::vector<std::shared_ptr<DecoderLayer>> layers;
  std::shared_ptr<LayerNorm> norm;  // null without final_norm
  bool checkpoint_layers = false;    // above

 private:
  std::shared_ptr<ModuleList> layer_list_;  // registers `layers` as the child "layers"
};

}  // namespace tg::nn
