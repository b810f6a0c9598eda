#pragma once
// MultiHeadAttention (PyTorch's nn.MultiheadAttention, batch_first, separate projections).
//   B batch, T queries, S keys, E = d_model, NH = num_heads, hs = E / NH (head size)
//   query (B,T,E), key (B,S,E), value (B,S,E)
//   q = q_proj(query) (B,T,E) -> reshape (B,T,NH,hs) -> transpose(1,2) -> (B,NH,T,hs)
//   k = k_proj(key)   (B,S,E) -> ... -> (B,NH,S,hs),   v likewise
//   o = fused_attention(q, k, v, masks) (B,NH,T,hs)                  (ops/fused/fused_attention)
//       or, with fused = false or need_weights, the same from the composed ops step by step:
//       scaled_dot_product_attention(q, k, v, masks)                 (nn/attention.h)
//   o -> transpose(1,2) (B,T,NH,hs) -> reshape (B,T,E) -> out_proj -> output (B,T,E)
// Masks (true = masked out, as everywhere in tapegrad):
//   attn_mask        bool, broadcast to (B,NH,T,S): (T,S), (B,1,T,S), (B,NH,T,S), or PyTorch's
//                    (B*NH,T,S), which is read as (B,NH,T,S)
//   additive_mask    float, added to the scores; the same shapes as attn_mask
//   key_padding_mask bool (B,S): true = that key is padding
//   is_causal        query i attends to keys j <= i only
// A query whose keys are all masked gets zero attention: its output is out_proj's bias, never NaN.
// Dropout on the attention weights applies only in training (after train(), the default).
// fused (default true): one fused_attention op whose memory grows linearly with T (the (T,S)
// weights are never stored); false, or a composed module (set_composed), or need_weights, or an
// additive_mask that requires grad: the composed ops, every step on the tape (the version to
// step through). Both give the same numbers, dropout included, to float tolerance. The choice
// is choose_attention_kernel's (nn/attention_kernel.h); the call is checked once, by
// AttentionSpec::check (ops/common/attention_spec.h), its errors naming MultiHeadAttention.
// Forward hooks: inputs {query, key, value}, outputs {output, weights}: weights (B,NH,T,S), the
// softmax before dropout, on the composed path; undefined on the fused one.
// need_weights: also returns the weights (softmax before dropout), per head (B,NH,T,S) and
// averaged over the heads (B,T,S) (PyTorch's average_attn_weights).
//
// Children: q_proj, k_proj, v_proj, out_proj (Linear(E, E, bias); Xavier uniform weights, zero
// biases). PyTorch packs q/k/v into in_proj_weight (3E, E) and draws it with Xavier over the
// packed shape (bound sqrt(6 / 4E)); here each (E, E) projection gets its own bound sqrt(6 / 2E).
#include <cstdint>
#include <memory>

#include "nn/linear.h"
#include "nn/module.h"

namespace tg::nn {

struct MhaOptions {  // default member initializers let callers write MhaOptions{.is_causal = true}
  Tensor attn_mask{};
  Tensor additive_mask{};
  Tensor key_padding_mask{};
  bool is_causal = false;
  bool need_weights = false;
  bool fused = true;
};

struct MhaResult {
  Tensor output;        // (B,T,E)
  Tensor weights;       // (B,NH,T,S) when need_weights
  Tensor mean_weights;  // (B,T,S) when need_weights: weights averaged over the heads
};

class MultiHeadAttention : public Module {
 public:
  MultiHeadAttention(int64_t d_model, int64_t num_heads, double dropout = 0, bool bias = true);
  MhaResult forward(const Tensor& query, const Tensor& key, const Tensor& value, const MhaOptions& options = {}) const;
  // forward's output with out_proj not yet applied: {out_proj, the heads merged (B,T,E)}, for a
  // post-LN residual connection that runs out_proj with its dropout, sum and norm
  // (nn/transformer_block.h); {null, forward's output} where a forward hook watches this module or
  // the weights are wanted.
  LinearOutput forward_to_out_proj(const Tensor& query, const Tensor& key, const Tensor& value,
                                   const MhaOptions& options = {}) const;

  int64_t d_model, num_heads, head_size;
  double dropout;
  std::shared_ptr<Linear> q_proj, k_proj, v_proj, out_proj;

 private:
  // Everything before out_proj, in this module's scope: the checks, the projections and the
  // attention; returns the heads merged (B,T,E) and sets `weights` (B,NH,T,S) on the composed path.
  Tensor merged_heads(const Tensor& query, const Tensor& key, const Tensor& value, const MhaOptions& options,
                      Tensor& weights) const;
};

}  // namespace tg::nn
