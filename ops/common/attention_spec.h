#pragma once
// One attention call, checked once where the user's call enters: fused_attention,
// scaled_dot_product_attention or nn::MultiHeadAttention::forward makes an AttentionSpec with
// AttentionSpec::check, and the kernel behind it (ops/fused/fused_attention, the composed ops
// of nn/attention.h) takes the spec and checks nothing again. Every error for bad attention
// input is thrown here, naming the entry the user called.
//
//   q (..., T, hs), k (..., S, hs), v (..., S, hv)  ->  scores (..., T, S)
//   fused:    q, k, v 4-D with the same (B,H): scores (B,H,T,S)
//   composed: batch dims broadcast (e.g. k (1,H,S,hs) against q (B,H,T,hs))
// What is checked, for both kernels unless said:
//   q, k, v      floating, one dtype, one device; the same head size; as many keys as values
//   attn_mask    bool, broadcast to the scores (true = masked out; a float mask is an error)
//   additive     q's dtype, broadcast to the scores; fused: must not require grad
//   key_padding  bool (B,S)
//   scale        positive and finite;  dropout_p in [0, 1] when training
//   need_weights fused: an error (the op never forms the (T,S) weights)
#include <cstdint>

#include "core/tensor.h"
#include "ops/common/attention_options.h"

namespace tg {

enum class AttentionKernel {
  fused,     // ops/fused/fused_attention: one tape entry, O(T) memory
  composed,  // nn/attention.h: matmul, masked_fill, softmax, dropout, matmul, every step on the tape
};

// The entry the user called, as its errors name it.
struct AttentionEntry {
  const char* name;                       // "fused_attention", "MultiHeadAttention", ...
  const char* scores_dims = "(B,H,T,S)";  // how it names 4-D scores' dims
  const char* mask_shapes_note = "";      // said after a mask-shape error: other shapes it accepts
};

// Views of the call's arguments: made and used within that call, never stored.
class AttentionSpec {
 public:
  // Throws tg::Error naming entry.name, the argument and the shapes when the call is bad for
  // `kernel`.
  static AttentionSpec check(const AttentionEntry& entry, AttentionKernel kernel, const Tensor& q, const Tensor& k,
                             const Tensor& v, const AttentionOptions& options);

  AttentionKernel kernel() const { return kernel_; }
  const Tensor& q() const { return q_; }
  const Tensor& k() const { return k_; }
  const Tensor& v() const { return v_; }
  const AttentionOptions& options() const { return options_; }
  const Shape& scores() const { return scores_; }  // (..., T, S)
  double scale() const { return scale_; }          // options.scale, or 1/sqrt(hs) by default

 private:
  AttentionSpec(AttentionKernel kernel, const Tensor& q, const Tensor& k, const Tensor& v,
                const AttentionOptions& options)
      : kernel_(kernel), q_(q), k_(k), v_(v), options_(options) {}

  AttentionKernel kernel_;
  const Tensor &q_, &k_, &v_;
  const AttentionOptions& options_;
  Shape scores_;
  double scale_ = 1;
};

}  // namespace tg
