#include "nn/attention_kernel.h"

#include "ops/fused/fused_attention/fused_attention.h"

namespace tg::nn {

AttentionKernel choose_attention_kernel(const AttentionKernelWish& wish) {
  // The caller asked for every step on the tape: the version a student steps through and traces.
  if (!wish.fused || wish.composed_module) return AttentionKernel::composed;
  // The fused op never forms the (T,S) weights; the composed ops form them anyway.
  if (wish.need_weights) return AttentionKernel::composed;
  // The gradient of an additive mask is a (T,S) tensor, which the fused op never forms either.
  if (wish.additive_mask_requires_grad) return AttentionKernel::composed;
  // Otherwise the fused op: the same numbers, memory linear in T, one tape entry.
  return AttentionKernel::fused;
}

AttentionResult run_attention(const AttentionSpec& spec) {
  if (spec.kernel() == AttentionKernel::fused) return {fused_attention(spec), Tensor()};
  return scaled_dot_product_attention(spec);
}

}  // namespace tg::nn
