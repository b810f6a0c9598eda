#pragma once
// What the fused_attention kernels read besides q, k, v: the sizes, the scale, the masks as
// strided views, the dropout state; and the per-element rules that the CPU and the CUDA kernel
// share, so that both compute each score and each keep-decision the same way.
// (No fmt here: fused_attention_cuda.cu includes this header.)
#include <cmath>
#include <cstdint>
#include <type_traits>

#include "core/rng.h"
#include "core/tensor.h"

namespace tg {

// A mask viewed as (B,H,T,S) through strides (0 on broadcast dims); data == nullptr: no mask.
struct AttentionMaskView {
  const void* data = nullptr;  // bool for the boolean masks, q's dtype for additive_mask
  int64_t sb = 0, sh = 0, st = 0, ss = 0;

  template <class E>
  TG_HOST_DEVICE E at(int64_t b, int64_t h, int64_t i, int64_t j) const {
    return static_cast<const E*>(data)[b * sb + h * sh + i * st + j * ss];
  }
};

struct FusedAttentionParams {
  int64_t B = 0, H = 0, T = 0, S = 0, hs = 0, hv = 0;
  double scale = 1;
  bool is_causal = false;              // key j > query i is masked
  AttentionMaskView attn_mask;         // bool, true = masked out
  AttentionMaskView key_padding_mask;  // bool (B,S) seen as (B,1,1,S), true = padding key
  AttentionMaskView additive_mask;     // added to the scaled scores
  // Dropout on the weights: keep_ij = dropout.keeps(((b*H + h)*T + i)*S + j),
  // z_ij = keep_ij * dropout_scale. dropout_p == 0: no dropout (z = 1).
  double dropout_p = 0;
  double dropout_scale = 1;  // 1/(1-p); 0 when p == 1
  DropoutDraw dropout;
};

// A (B,H,L,d) tensor whose last stride is 1, as rows: row(n, i) points at element (b, h, i, 0) of
// head n = b*H + h.
template <class T>
struct AttentionRows {
  T* data;
  int64_t sb, sh, sl, H;
  explicit AttentionRows(const Tensor& t)
      : data(t.data<std::remove_const_t<T>>()), sb(t.strides()[0]), sh(t.strides()[1]), sl(t.strides()[2]), H(t.size(1)) {}
  TG_HOST_DEVICE T* row(int64_t n, int64_t i) const { return data + (n / H) * sb + (n % H) * sh + i * sl; }
};

// Whether key j is hidden from query i of head (b, h).
TG_HOST_DEVICE inline bool attention_masked(const FusedAttentionParams& p, int64_t b, int64_t h, int64_t i,
                                            int64_t j) {
  return (p.is_causal && j > i) || (p.attn_mask.data && p.attn_mask.at<bool>(b, h, i, j)) ||
         (p.key_padding_mask.data && p.key_padding_mask.at<bool>(b, h, i, j));
}

// s_ij from dot = q_i . k_j, in the composed op's order: dot * scale, + additive, -inf if masked.
template <class T>
TG_HOST_DEVICE inline T attention_score(const FusedAttentionParams& p, T dot, int64_t b, int64_t h, int64_t i,
                                        int64_t j) {
  if (attention_masked(p, b, h, i, j)) return static_cast<T>(-INFINITY);
  T s = dot * static_cast<T>(p.scale);
  if (p.additive_mask.data) s += p.additive_mask.at<T>(b, h, i, j);
  return s;
}

// z_ij along one query row i of head n = b*H + h, for increasing j: one Philox call serves
// dropout.per_counter() consecutive elements (the draws ops/dropout reads for them). The CUDA
// kernel's; the CPU kernel makes the same decisions for a row of a tile at once (DropoutTile).
class DropoutRow {
 public:
  TG_HOST_DEVICE DropoutRow(const FusedAttentionParams& p, int64_t n, int64_t i)
      : p_(p.dropout_p), scale_(p.dropout_scale), draw_(p.dropout), base_(static_cast<uint64_t>((n * p.T + i) * p.S)) {}

  template <class T>
  TG_HOST_DEVICE T at(int64_t j) {
    if (p_ == 0) return T(1);
    const uint64_t index = base_ + static_cast<uint64_t>(j), counter = draw_.counter(index);
    if (counter != counter_) words_ = philox(draw_.seed, counter), counter_ = counter;
    return draw_.keeps(words_, index) ? static_cast<T>(scale_) : T(0);
  }

 private:
  double p_, scale_;
  DropoutDraw draw_;
  uint64_t base_;
  uint64_t counter_ = ~uint64_t{0};
  PhiloxBlock words_{};
};

}  // namespace tg
