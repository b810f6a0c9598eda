#pragma once
// scaled_dot_product_attention, composed from ops so that every step shows on the tape:
//
//   q (..., T, hs), k (..., S, hs), v (..., S, hv)        batch dims broadcast (e.g. (B, NH))
//   scores  = matmul(q, transpose(k, -2, -1)) * scale       (..., T, S)   scale = 1/sqrt(hs)
//   scores  = scores + additive_mask                        (float, broadcast to (..., T, S))
//   scores  = masked_fill(scores, attn_mask, -inf)          (bool, true = masked out)
//   scores  = masked_fill(scores, causal_mask(T, S), -inf)  (is_causal: key j > query i)
//   scores  = masked_fill(scores, key_padding_mask, -inf)   (bool (B, S), true = padding key)
//   weights = softmax(scores, -1)                           over the keys
//   weights = dropout(weights, dropout_p)                   only when training
//   out     = matmul(weights, v)                            (..., T, hv)
//
// Backward is that of the ops above, entry by entry. Conventions, chosen against the classic
// attention bugs:
// - Boolean masks only, true = masked out (as masked_fill and PyTorch's nn.MultiheadAttention);
//   a float tensor passed as attn_mask is an error: float masks go in additive_mask.
// - is_causal together with attn_mask applies both (a key is dropped if either masks it).
// - A query whose keys are all masked gets zero weights, a zero output and zero gradients
//   (softmax of an all -inf row is 0 here, not NaN), so padded batches never poison training.
// - Dropout applies only when `training` is true; the default is false, so evaluation code
//   cannot leave it on by accident.
// - weights (need_weights) are the softmax before dropout.
#include <optional>

#include "core/rng.h"
#include "core/tensor.h"

namespace tg {

struct AttentionOptions {
  Tensor attn_mask;         // bool, broadcast to (..., T, S); true = masked out
  Tensor additive_mask;     // float, added to the scores, broadcast to (..., T, S)
  Tensor key_padding_mask;  // bool (B, S); true = that key is padding
  bool is_causal = false;
  double dropout_p = 0;
  bool training = false;
  std::optional<double> scale;  // default 1/sqrt(hs)
  bool need_weights = false;
  Generator* generator = nullptr;  // for dropout; default_generator() when null
};

struct AttentionResult {
  Tensor output;   // (..., T, hv)
  Tensor weights;  // (..., T, S) when need_weights, else undefined
};

AttentionResult scaled_dot_product_attention(const Tensor& q, const Tensor& k, const Tensor& v,
                                             const AttentionOptions& options = {});

// Bool masks, true = masked out.
Tensor causal_mask(int64_t T, int64_t S = -1, Device device = kCPU);  // (T, S): key j > query i
Tensor padding_mask(const std::vector<int64_t>& lengths, int64_t T, Device device = kCPU);  // (B, T): t >= length

}  // namespace tg
