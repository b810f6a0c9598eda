#pragma once
// fused_attention's derivative written with tapegrad ops (core/tape.h): its reference backward
// rule and its forward-mode rule. The kernels (fused_attention_cpu.cpp, _cuda.cu) are the fast
// path; these run when a backward creates a graph or a tangent flows (tg::jvp), and then they
// form the (T,S) weights the kernels never store.
//
// Both recompute the weights from q and k with the composed ops, as scaled_dot_product_attention
// (nn/attention.h) computes them, so that a backward creating a graph records them and the
// gradient differentiates again through those ops. The masks and the dropout draw are constants.
//   P (B,H,T,S) = softmax(scale * q k^T + additive_mask, -inf where masked)     over the keys
//   z (B,H,T,S) = keep / (1 - dropout_p), the forward's draw (1 without dropout)
//   out = (P * z) v
// Reverse (g = dL/dout):
//   dv = (P * z)^T g,   dP = (g v^T) * z,   dS = P * (dP - rowsum(dP * P)),
//   dq = scale * dS k,  dk = scale * dS^T q
// Forward (tangents tq, tk, tv):
//   tS = scale * (tq k^T + q tk^T),  tP = P * (tS - rowsum(P * tS)),  tout = (tP * z) v + (P * z) tv
// (softmax's Jacobian is symmetric: dS and tP are the same product.) A masked score is a
// constant, and P is 0 there, so neither dS nor tP needs the masks again.
#include "core/tape.h"
#include "core/tensor.h"
#include "ops/fused/fused_attention/fused_attention_params.h"

namespace tg {

// The masks the forward read, as given; undefined when absent.
struct AttentionMasks {
  Tensor attn_mask, key_padding_mask, additive_mask;
};

// The masks saved on a fused_attention tape entry (each under its own name).
AttentionMasks saved_attention_masks(const BackwardContext& ctx, const FusedAttentionParams& p);

// {dq, dk, dv} from ctx.grad() (B,H,T,hv) and the saved q, k, v (undefined where not needed).
TensorList fused_attention_reference_backward(const BackwardContext& ctx, const FusedAttentionParams& p);

// tout (B,H,T,hv) from the tangents of q, k, v (zero where absent).
Tensor fused_attention_tangent(const ForwardContext& f, const FusedAttentionParams& p, const AttentionMasks& masks);

}  // namespace tg
