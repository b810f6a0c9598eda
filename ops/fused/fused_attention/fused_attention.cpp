#include "ops/fused/fused_attention/fused_attention.h"

#include "core/copy.h"
#include "core/cuda/cuda_only.h"
#include "core/error.h"
#include "core/factories.h"
#include "core/tape.h"
#include "ops/common/op_doc.h"
#include "ops/dropout/dropout.h"
#include "ops/fused/fused_attention/fused_attention_rules.h"

namespace tg {

namespace {

constexpr const char* kOp = "fused_attention";

AttentionMaskView mask_view(const Tensor& mask, const Shape& scores) {
  const Shape st = broadcast_strides(mask.shape(), mask.strides(), scores);
  return {mask.raw_data(), st[0], st[1], st[2], st[3]};
}

// The masks point into the tensors given (forward) or saved (backward).
void attach_masks(FusedAttentionParams& p, const Tensor& attn_mask, const Tensor& key_padding_mask,
                  const Tensor& additive_mask) {
  const Shape scores{p.B, p.H, p.T, p.S};
  if (attn_mask.defined()) p.attn_mask = mask_view(attn_mask, scores);
  if (key_padding_mask.defined()) {
    const Shape& st = key_padding_mask.strides();  // (B,S) seen as (B,1,1,S)
    p.key_padding_mask = {key_padding_mask.raw_data(), st[0], 0, 0, st[1]};
  }
  if (additive_mask.defined()) p.additive_mask = mask_view(additive_mask, scores);
}

// The kernels read rows through the strides of dims 0..2 but need the last stride to be 1.
Tensor unit_last_stride(const Tensor& t) { return t.strides().back() == 1 ? t : contiguous_copy(t); }

// An output (out, dq, dk, dv) of `shape` for the input `like` (q, k, v). The CPU kernels write
// rows through strides, so there it is laid out in like's order: heads split from a (B,T,E)
// projection by a transpose, as nn::MultiHeadAttention does, then merge back by a view, not a
// copy, in forward and backward. The CUDA kernels write contiguous ones, dk and dv into zeros
// (zeroed_on_gpu; the CPU kernel zeroes each head's rows itself, right before it adds to them).
Tensor fresh(const Shape& shape, const Tensor& like, bool zeroed_on_gpu = false) {
  if (!like.is_cuda()) return empty_in_order_of(shape, like);
  return zeroed_on_gpu ? zeros(shape, like.dtype(), like.device()) : empty(shape, like.dtype(), like.device());
}

// The fast path: dq, dk, dv by the backward kernels, the weights recomputed tile by tile from the
// saved lse.
TensorList kernel_backward(const BackwardContext& ctx, const FusedAttentionParams& p) {
  FusedAttentionParams params = p;
  const AttentionMasks masks = saved_attention_masks(ctx, p);
  attach_masks(params, masks.attn_mask, masks.key_padding_mask, masks.additive_mask);
  const Tensor q = unit_last_stride(ctx.saved("q")), k = unit_last_stride(ctx.saved("k")),
               v = unit_last_stride(ctx.saved("v"));
  const Tensor dout = unit_last_stride(ctx.grad());
  Tensor dq = fresh(q.shape(), q), dk = fresh(k.shape(), k, true), dv = fresh(v.shape(), v, true);
  if (q.is_cuda())
    TG_CUDA_ONLY(fused_attention_backward_cuda(dq, dk, dv, ctx.saved("out"), ctx.saved("lse"), dout, q, k, v, params));
  else
    fused_attention_backward_cpu(dq, dk, dv, ctx.saved("out"), ctx.saved("lse"), dout, q, k, v, params);
  return {dq, dk, dv};
}

}  // namespace

TG_OP_DOC(fused_attention) {
  return {.summary = "softmax(q k^T * scale, masked) v in one op, saving only out and log-sum-exp",
          .forward_text = "out = P v, P = softmax(scale * q k^T + masks) over the keys (times the "
                          "dropout mask / (1 - p) in training), scale = 1/sqrt(head size)",
          .forward_tex = R"(\mathrm{out} = P\, v,\quad P = \operatorname{softmax}\!\left(\tfrac{q )"
                         R"(k^\top}{\sqrt{d_k}} + M\right))",
          .backward = {{"q",
                        "dL/dq = scale * dL/dS @ k, dL/dS = P * (dL/dP - rowsum(dL/dP * P)), "
                        "dL/dP = dL/dout @ v^T (times the dropout mask / (1 - p) in training); P recomputed "
                        "from q and k",
                        R"(\dLd{q} = \tfrac{1}{\sqrt{d_k}}\, \dLd{S}\, k,\quad \dLd{S} = P \odot )"
                        R"(\left(\dLd{P} - \operatorname{rowsum}(\dLd{P} \odot P)\right),\quad )"
                        R"(\dLd{P} = \dLd{\mathrm{out}}\, v^\top)"},
                       {"k",
                        "dL/dk = scale * dL/dS^T @ q",
                        R"(\dLd{k} = \tfrac{1}{\sqrt{d_k}}\, \dLd{S}^\top q)"},
                       {"v",
                        "dL/dv = P^T @ dL/dout (P times the dropout mask / (1 - p) in training)",
                        R"(\dLd{v} = P^\top \dLd{\mathrm{out}})"}}};
}

Tensor fused_attention(const Tensor& q, const Tensor& k, const Tensor& v, const AttentionOptions& options) {
  return fused_attention(AttentionSpec::check({kOp}, AttentionKernel::fused, q, k, v, options));
}

Tensor fused_attention(const AttentionSpec& spec) {
  const FusedAttentionRun call(spec);
  call.run();
  return call.record(spec.q(), spec.k(), spec.v());
}

FusedAttentionRun::FusedAttentionRun(const AttentionSpec& spec) {
  if (spec.kernel() != AttentionKernel::fused)
    throw Error(kOp, "the call was checked for the composed kernel, which allows what this op does not");
  const Tensor &q = spec.q(), &k = spec.k(), &v = spec.v();
  const AttentionOptions& o = spec.options();
  FusedAttentionParams& p = p_;
  p.B = q.size(0), p.H = q.size(1), p.T = q.size(2), p.S = k.size(2), p.hs = q.size(3), p.hv = v.size(3);
  p.scale = spec.scale();
  p.is_causal = o.is_causal;
  attn_mask_ = o.attn_mask, key_padding_mask_ = o.key_padding_mask, additive_mask_ = o.additive_mask;
  attach_masks(p, attn_mask_, key_padding_mask_, additive_mask_);
  if (o.training && o.dropout_p > 0) {  // reserves exactly what ops/dropout reserves for the weights
    Generator& gen = o.generator ? *o.generator : default_generator();
    p.dropout_p = o.dropout_p;
    p.dropout_scale = o.dropout_p < 1 ? 1 / (1 - o.dropout_p) : 0;
    p.dropout = reserve_dropout(gen, static_cast<uint64_t>(p.B * p.H * p.T * p.S), o.dropout_p);
  }
  q_ = unit_last_stride(q), k_ = unit_last_stride(k), v_ = unit_last_stride(v);
  out_ = fresh({p.B, p.H, p.T, p.hv}, q_);
  lse_ = empty({p.B, p.H, p.T}, q.dtype(), q.device());
}

GemmSideWork FusedAttentionRun::after_products() const {
  auto kernel_part = [](const void* context, int thread, int threads) {
    const auto& run = *static_cast<const FusedAttentionRun*>(context);
    fused_attention_forward_part_cpu(run.out_, run.lse_, run.q_, run.k_, run.v_, run.p_, thread, threads);
  };
  return {kernel_part, this, GemmPhase::after};
}

void FusedAttentionRun::run() const {
  if (q_.is_cuda())
    TG_CUDA_ONLY(fused_attention_forward_cuda(out_, lse_, q_, k_, v_, p_));
  else
    fused_attention_forward_cpu(out_, lse_, q_, k_, v_, p_);
}

Tensor FusedAttentionRun::record(const Tensor& q, const Tensor& k, const Tensor& v) const {
  if (Recorder rec(kOp, {q, k, v}, {out_}); rec) {
    // q, k, v themselves, not their copies with a unit last stride: a backward that creates a
    // graph differentiates through them (core/tape.h).
    rec.save("q", q).save("k", k).save("v", v).save("out", out_).save("lse", lse_);
    if (attn_mask_.defined()) rec.save("attn_mask", attn_mask_);
    if (key_padding_mask_.defined()) rec.save("key_padding_mask", key_padding_mask_);
    if (additive_mask_.defined()) rec.save("additive_mask", additive_mask_);
    const FusedAttentionParams& p = p_;
    rec.attr("scale", p.scale).attr("is_causal", p.is_causal).attr("dropout_p", p.dropout_p);
    rec.forward([&](const ForwardContext& f) -> TensorList {
      return {fused_attention_tangent(f, p, {attn_mask_, key_padding_mask_, additive_mask_})};
    });
    rec.backward([p](const BackwardContext& ctx) { return fused_attention_reference_backward(ctx, p); },
                 [p](const BackwardContext& ctx) { return kernel_backward(ctx, p); });
  }
  return out_;
}

}  // namespace tg
