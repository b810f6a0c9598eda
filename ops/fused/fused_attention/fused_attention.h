#pragma once
// fused_attention: scaled_dot_product_attention (nn/attention.h) in one op, one tape entry, with
// the memory of a FlashAttention-style kernel: the (T, S) scores and weights are never stored.
//
//   B batch, H heads, T queries, S keys, hs head size, hv value size
//   q (B,H,T,hs), k (B,H,S,hs), v (B,H,S,hv) -> out (B,H,T,hv)
//   s_ij   = scale * q_i . k_j + additive_mask_ij        (scale = 1/sqrt(hs) by default)
//   s_ij   = -inf where attn_mask, key_padding_mask or is_causal (j > i) masks key j for query i
//   p_ij   = exp(s_ij - lse_i),  lse_i = log sum_j exp(s_ij)          (softmax over the keys)
//   z_ij   = keep_ij / (1 - dropout_p), keep_ij = draw.keeps(((b*H + h)*T + i)*S + j)
//            (draw = reserve_dropout(generator, B*H*T*S, dropout_p), as ops/dropout draws)
//            (1 without dropout: only when options.training and dropout_p > 0)
//   out_i  = sum_j p_ij z_ij v_j
// The masks, dropout (with its generator), scale and training flag are AttentionOptions, read
// exactly as scaled_dot_product_attention reads them; with the same generator state the
// dropout keep-mask is the very one ops/dropout draws for the composed weights, so both give
// the same numbers. need_weights is an error here (the weights are what this op never forms).
// The checks of q, k, v and the options, with their messages: ops/common/attention_spec.h.
//
// Forward (fused_attention_cpu.cpp): for each (b, h) and block of query rows, the keys are
// visited block by block with an online softmax: a running max m_i and sum l_i per row, the
// partial output rescaled by exp(m_old - m_new) when the max grows. Saved: q, k, v, the masks
// given, out and lse (B,H,T): O(T) extra memory per (b, h), never O(T*S).
//
// Forward formula and backward rule per input: TG_OP_DOC in ops/fused/fused_attention/fused_attention.cpp
// (docs/ops.md). The backward kernel recomputes p tile by tile from lse, with the dropout factor
// z_ij in dp and dv. That kernel is the fast path; the derivative's definition, the reference
// rule a backward creating a graph runs and the forward-mode rule, is tapegrad code that forms
// the (T,S) weights: fused_attention_rules.h.
// A query whose keys are all masked has lse = -inf: out = 0, dq = 0 and it adds nothing to dk,
// dv (as the composed op, whose softmax gives 0 for an all -inf row). The masks get no
// gradient; an additive_mask that requires grad is an error (its gradient is a (T, S) tensor).
#include <cstdint>

#include "core/tensor.h"
#include "ops/common/attention_options.h"
#include "ops/common/attention_spec.h"
#include "ops/fused/fused_attention/fused_attention_params.h"
#include "ops/matmul/gemm_cpu.h"

namespace tg {

// Checks the call (AttentionSpec::check, naming fused_attention), then runs it.
Tensor fused_attention(const Tensor& q, const Tensor& k, const Tensor& v, const AttentionOptions& options = {});
// A call checked already, for the fused kernel, where the user's call entered
// (nn::MultiHeadAttention): runs it without checking again.
Tensor fused_attention(const AttentionSpec& spec);

// fused_attention in two halves, for a caller that runs the kernel in the parallel region of the
// products that make q, k and v (nn::MultiHeadAttention's self-attention on the CPU). The run is
// made from a call checked for the fused kernel, where q, k and v may be views of the products'
// outputs that nothing has recorded or written yet: it draws the dropout's offset and makes the
// outputs. after_products() is the CPU kernel as the products' GemmPhase::after work; run() is the
// kernel in a region of its own (or on the GPU). record(q, k, v) then records the entry for q, k
// and v as recorded (the same values and strides) and returns out. fused_attention(spec) is run()
// then record().
class FusedAttentionRun {
 public:
  explicit FusedAttentionRun(const AttentionSpec& spec);
  GemmSideWork after_products() const;
  void run() const;
  Tensor record(const Tensor& q, const Tensor& k, const Tensor& v) const;

 private:
  FusedAttentionParams p_;
  Tensor q_, k_, v_, out_, lse_;  // q, k, v with a unit last stride, as the kernels read them
  Tensor attn_mask_, key_padding_mask_, additive_mask_;
};

// Kernels. q, k, v and dout are read as rows through their strides, the last one 1; so are out,
// dq, dk and dv written on the CPU (the _cuda kernels need them contiguous); lse is contiguous;
// all on the CPU or all on one GPU (_cuda).
// out = attention(q, k, v), lse = log-sum-exp of each query's scores (= writes both).
void fused_attention_forward_cpu(const Tensor& out, const Tensor& lse, const Tensor& q, const Tensor& k,
                                 const Tensor& v, const FusedAttentionParams& params);
// The same by thread `thread` of `threads` of a team: its share of the (head, query block) items.
void fused_attention_forward_part_cpu(const Tensor& out, const Tensor& lse, const Tensor& q, const Tensor& k,
                                      const Tensor& v, const FusedAttentionParams& params, int thread, int threads);
void fused_attention_forward_cuda(const Tensor& out, const Tensor& lse, const Tensor& q, const Tensor& k,
                                  const Tensor& v, const FusedAttentionParams& params);
// dq, dk, dv from dout: the CPU kernel writes all three; the CUDA one writes dq and accumulates
// (+=) dk and dv into the zeros given.
void fused_attention_backward_cpu(const Tensor& dq, const Tensor& dk, const Tensor& dv, const Tensor& out,
                                  const Tensor& lse, const Tensor& dout, const Tensor& q, const Tensor& k,
                                  const Tensor& v, const FusedAttentionParams& params);
void fused_attention_backward_cuda(const Tensor& dq, const Tensor& dk, const Tensor& dv, const Tensor& out,
                                   const Tensor& lse, const Tensor& dout, const Tensor& q, const Tensor& k,
                                   const Tensor& v, const FusedAttentionParams& params);

}  // namespace tg
