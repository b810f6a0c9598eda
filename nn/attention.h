#pragma once
// scaled_dot_product_attention, composed from ops so that every step shows on the tape. It
// records no entry of its own (a composition, hence nn/, beside the modules that use it; its
// one-entry twin is ops/fused/fused_attention):
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
// The checks of q, k, v and the options, with their messages: ops/common/attention_spec.h.
#include "core/tensor.h"
#include "ops/common/attention_options.h"
#include "ops/common/attention_spec.h"

namespace tg {

struct AttentionResult {
  Tensor output;   // (..., T, hv)
  Tensor weights;  // (..., T, S) when need_weights, else undefined
};

// Checks the call (AttentionSpec::check, naming scaled_dot_product_attention), then runs it.
AttentionResult scaled_dot_product_attention(const Tensor& q, const Tensor& k, const Tensor& v,
                                             const AttentionOptions& options = {});
// A call checked already where the user's call entered (for either kernel: the fused checks
// are the stricter): runs it without checking again.
AttentionResult scaled_dot_product_attention(const AttentionSpec& spec);

}  // namespace tg
