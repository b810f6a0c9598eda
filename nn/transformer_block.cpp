#include "nn/transformer_block.h"

#include "ops/add/add.h"

namespace tg::nn {

Tensor residual(const Tensor& x, const LayerNorm& norm, bool norm_first, const Dropout& dropout,
                const std::function<LinearOutput(const Tensor&)>& block) {
  if (norm_first) {
    const LinearOutput y = block(norm.forward(x));
    return y.layer ? y.layer->forward_dropout_add(y.x, x, dropout) : dropout.forward_added_to(x, y.x);
  }
  const LinearOutput y = block(x);
  return y.layer ? y.layer->forward_dropout_add_norm(y.x, x, dropout, norm)
                 : norm.forward_of_dropout_add(x, y.x, dropout);
}

LinearOutput attention_block(const MultiHeadAttention& attention, const Tensor& query, const Tensor& memory,
                             const MhaOptions& masks) {
  MhaOptions options = masks;
  options.need_weights = false;
  return attention.forward_to_out_proj(query, memory, memory, options);
}

LinearOutput feed_forward_block(const Tensor& x, const Linear& linear1, Activation activation, const Dropout& dropout,
                                bool fuse_relu_dropout, const Linear& linear2) {
  return {&linear2, linear_activate_and_drop(x, linear1, activation, dropout, fuse_relu_dropout)};
}

void check_attention_mask(const char* module, const char* arg, const Tensor& mask, const Tensor& x,
                          const Shape& scores, const char* dims) {
  if (!mask.defined()) return;
  const int64_t B = scores[0], NH = scores[1], T = scores[2], S = scores[3];
  if (mask.dtype() != kBool && mask.dtype() != x.dtype())
    throw Error(module, fmt::format("{} must be bool (true = masked out) or {} (added to the scores), got {} {}", arg,
                                    dtype_name(x.dtype()), dtype_name(mask.dtype()), shape_str(mask.shape())));
  bool fits = mask.dim() >= 2 && mask.dim() <= 4;
  if (mask.dim() == 3 && mask.size(0) == B * NH) fits = mask.size(1) == T && mask.size(2) == S;
  else
    for (int64_t d = 1; fits && d <= mask.dim(); ++d) fits = mask.size(-d) == 1 || mask.size(-d) == scores[4 - d];
  if (!fits)
    throw Error(module, fmt::format("{} must be ({}) = ({},{}), (B*NH,{}) = ({},{},{}) or broadcast to (B,NH,{}) = {}, "
                                    "got {}", arg, dims, T, S, dims, B * NH, T, S, dims, shape_str(scores),
                                    shape_str(mask.shape())));
}

void check_key_padding_mask(const char* module, const char* arg, const Tensor& mask, int64_t B, int64_t S,
                            const char* dims) {
  if (!mask.defined()) return;
  if (mask.dtype() != kBool || mask.dim() != 2 || mask.size(0) != B || mask.size(1) != S)
    throw Error(module, fmt::format("{} must be bool ({}) = ({},{}), true = padding, got {} {}", arg, dims, B, S,
                                    dtype_name(mask.dtype()), shape_str(mask.shape())));
}

void set_attention_mask(MhaOptions& options, const Tensor& mask) {
  if (!mask.defined()) return;
  (mask.dtype() == kBool ? options.attn_mask : options.additive_mask) = mask;
}

}  // namespace tg::nn
