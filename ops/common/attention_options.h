#pragma once
// The options of attention, read the same way by the composed scaled_dot_product_attention
// (nn/attention.h) and the fused op (ops/fused/fused_attention), and the two bool masks.
// One meaning of true throughout: masked out.
#include <optional>
#include <vector>

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

// Bool masks, true = masked out.
Tensor causal_mask(int64_t T, int64_t S = -1, Device device = kCPU);  // (T, S): key j > query i
Tensor padding_mask(const std::vector<int64_t>& lengths, int64_t T, Device device = kCPU);  // (B, T): t >= length

}  // namespace tg
