#pragma once
// EncoderLayer: one Transformer encoder block with PyTorch's nn.TransformerEncoderLayer
// semantics (batch_first).
//   src (B,T,E) -> out (B,T,E)
//   sa(x) = dropout1(self_attn(x, x, x, masks).output)
//   ff(x) = dropout2(linear2(dropout(activation(linear1(x)))))
//           (relu -> dropout as one relu_dropout op unless config.fuse_relu_dropout is false or
//           the layer is composed: set_composed)
//   post-LN (norm_first = false, the default, as in the original Transformer):
//     x = norm1(x + sa(x));  x = norm2(x + ff(x))
//   pre-LN (norm_first = true, as GPT-2; trains more stably when deep):
//     x = x + sa(norm1(x));  x = x + ff(norm2(x))
//   (each x + dropout_k(...) one dropout_add op, Dropout::forward_added_to, or post-LN with its norm
//   one dropout_add_layer_norm op, LayerNorm::forward_of_dropout_add, unless the layer is composed)
// Children, in PyTorch's order and with its names: self_attn, linear1, dropout, linear2, norm1,
// norm2, dropout1, dropout2 (the feed-forward linears sit directly in the layer, as in PyTorch,
// rather than in a FeedForward child; activate() is shared with FeedForward).
// Forward hooks: inputs {src}, outputs {out}.
#include <cstdint>
#include <memory>

#include "nn/dropout.h"
#include "nn/feed_forward.h"
#include "nn/layer_norm.h"
#include "nn/linear.h"
#include "nn/module.h"
#include "nn/multi_head_attention.h"

namespace tg::nn {

struct EncoderLayerConfig {  // PyTorch's defaults; d_model and nhead must be set
  int64_t d_model = 0;
  int64_t nhead = 0;
  int64_t dim_feedforward = 2048;
  double dropout = 0.1;
  Activation activation = Activation::relu;
  double layer_norm_eps = 1e-5;
  bool norm_first = false;
  bool fuse_relu_dropout = true;  // the feed-forward's relu -> dropout as one relu_dropout op (nn::FeedForward)
};

class EncoderLayer : public Module {
 public:
  explicit EncoderLayer(const EncoderLayerConfig& config);
  EncoderLayer(int64_t d_model, int64_t nhead, int64_t dim_feedforward = 2048, double dropout = 0.1,
               Activation activation = Activation::relu, double layer_norm_eps = 1e-5, bool norm_first = false);
  // The masks of `masks` apply to the self-attention; its need_weights is ignored.
  Tensor forward(const Tensor& src, const MhaOptions& masks = {}) const;
  // The self-attention's weights for `src` (B,T,E): (B,NH,T,T), the softmax before dropout,
  // as forward() computes them (after norm1 when norm_first).
  Tensor self_attention_weights(const Tensor& src, const MhaOptions& masks = {}) const;

  EncoderLayerConfig config;
  std::shared_ptr<MultiHeadAttention> self_attn;
  std::shared_ptr<Linear> linear1;
  std::shared_ptr<Dropout> dropout;
  std::shared_ptr<Linear> linear2;
  std::shared_ptr<LayerNorm> norm1, norm2;
  std::shared_ptr<Dropout> dropout1, dropout2;

 private:
  LinearOutput sa_block(const Tensor& x, const MhaOptions& masks) const;
  LinearOutput ff_block(const Tensor& x) const;
};

}  // namespace tg::nn
