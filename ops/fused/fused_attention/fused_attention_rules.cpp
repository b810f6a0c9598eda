#include "ops/fused/fused_attention/fused_attention_rules.h"

#include <cmath>

#include "core/cuda/cuda_only.h"
#include "core/factories.h"
#include "ops/add/add.h"
#include "ops/common/attention_options.h"
#include "ops/dropout/dropout.h"
#include "ops/masked_fill/masked_fill.h"
#include "ops/matmul/matmul.h"
#include "ops/mul/mul.h"
#include "ops/reshape/reshape.h"
#include "ops/softmax/softmax.h"
#include "ops/sub/sub.h"
#include "ops/sum/sum.h"
#include "ops/transpose/transpose.h"

namespace tg {

namespace {

Tensor transposed(const Tensor& t) { return transpose(t, -2, -1); }

// P (B,H,T,S) from q (B,H,T,hs) and k (B,H,S,hs), the scores masked in the kernels' order.
Tensor attention_probabilities(const Tensor& q, const Tensor& k, const FusedAttentionParams& p,
                               const AttentionMasks& m) {
  const double neg_inf = -INFINITY;
  Tensor scores = mul(matmul(q, transposed(k)), p.scale);
  if (m.additive_mask.defined()) scores = add(scores, m.additive_mask);
  if (m.attn_mask.defined()) scores = masked_fill(scores, m.attn_mask, neg_inf);
  if (p.is_causal) scores = masked_fill(scores, causal_mask(p.T, p.S, q.device()), neg_inf);
  if (m.key_padding_mask.defined())  // (B,S) -> (B,1,1,S)
    scores = masked_fill(scores, reshape(m.key_padding_mask, {p.B, 1, 1, p.S}), neg_inf);
  return softmax(scores, -1);
}

// z (B,H,T,S) = keep / (1 - p) in q's dtype: the draw the forward made, as ops/dropout makes it
// (fused_attention.h). Undefined without dropout.
Tensor dropout_factor(const FusedAttentionParams& p, const Tensor& like) {
  if (p.dropout_p == 0) return {};
  const Shape shape{p.B, p.H, p.T, p.S};
  const Tensor all_ones = ones(shape, like.dtype(), like.device());
  Tensor z = empty(shape, like.dtype(), like.device()), keep = empty(shape, kBool, like.device());
  if (like.is_cuda())
    TG_CUDA_ONLY(dropout_forward_cuda(z, keep, all_ones, p.dropout, p.dropout_scale, false));
  else
    dropout_forward_cpu(z, keep, all_ones, p.dropout, p.dropout_scale, false);
  return z;
}

Tensor times(const Tensor& t, const Tensor& z) { return z.defined() ? mul(t, z) : t; }

// P * (d - rowsum(d * P)): softmax's Jacobian (symmetric) applied to d (B,H,T,S).
Tensor softmax_jacobian_times(const Tensor& probs, const Tensor& d) {
  return mul(probs, sub(d, sum(mul(d, probs), {-1}, true)));
}

}  // namespace

AttentionMasks saved_attention_masks(const BackwardContext& ctx, const FusedAttentionParams& p) {
  auto saved_if = [&](bool present, const char* name) { return present ? ctx.saved(name) : Tensor(); };
  return {saved_if(p.attn_mask.data, "attn_mask"), saved_if(p.key_padding_mask.data, "key_padding_mask"),
          saved_if(p.additive_mask.data, "additive_mask")};
}

TensorList fused_attention_reference_backward(const BackwardContext& ctx, const FusedAttentionParams& p) {
  const Tensor& grad = ctx.grad();  // (B,H,T,hv)
  const Tensor &q = ctx.saved("q"), &k = ctx.saved("k"), &v = ctx.saved("v");
  const Tensor probs = attention_probabilities(q, k, p, saved_attention_masks(ctx, p));  // (B,H,T,S)
  const Tensor z = dropout_factor(p, q);
  Tensor dq, dk, dv;
  if (ctx.needs_grad(2)) dv = matmul(transposed(times(probs, z)), grad);  // (B,H,S,T) @ (B,H,T,hv)
  if (ctx.needs_grad(0) || ctx.needs_grad(1)) {
    const Tensor dprobs = times(matmul(grad, transposed(v)), z);  // (B,H,T,hv) @ (B,H,hv,S)
    const Tensor dscores = mul(softmax_jacobian_times(probs, dprobs), p.scale);
    if (ctx.needs_grad(0)) dq = matmul(dscores, k);              // (B,H,T,S) @ (B,H,S,hs)
    if (ctx.needs_grad(1)) dk = matmul(transposed(dscores), q);  // (B,H,S,T) @ (B,H,T,hs)
  }
  return {dq, dk, dv};
}

Tensor fused_attention_tangent(const ForwardContext& f, const FusedAttentionParams& p, const AttentionMasks& masks) {
  const Tensor &q = f.input(0), &k = f.input(1), &v = f.input(2);
  const Tensor probs = attention_probabilities(q, k, p, masks);  // (B,H,T,S)
  const Tensor z = dropout_factor(p, q);
  const Tensor tscores =
      mul(add(matmul(f.tangent_or_zeros(0), transposed(k)), matmul(q, transposed(f.tangent_or_zeros(1)))), p.scale);
  const Tensor tprobs = softmax_jacobian_times(probs, tscores);
  return add(matmul(times(tprobs, z), v), matmul(times(probs, z), f.tangent_or_zeros(2)));  // (B,H,T,hv)
}

}  // namespace tg
