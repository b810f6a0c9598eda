#pragma once
// The small example of tapegrad trace and tapegrad explore --trace: one head of causal
// self-attention on 3 tokens, written op by op so that every intermediate has a name:
//   x (T,C) -> q = x Wq, k = x Wk, v = x Wv                  (T,hs)
//   scores  = (q k^T) * 1/sqrt(hs)                           (T,T)
//   masked  = masked_fill(scores, causal_mask(T), -inf)     key j > query i is hidden
//   weights = softmax(masked)                                each row sums to 1
//   out     = weights v                                      (T,hs)
//   loss    = mean(out^2)
// Internal to the program.
#include <cstdint>
#include <vector>

#include "core/tensor.h"

namespace tg::cli {

inline constexpr int64_t kExampleTokens = 3, kExampleWidth = 4, kExampleHeadSize = 4;  // T, C, hs

struct AttentionExample {
  Tensor x, Wq, Wk, Wv, mask;  // the input, the parameters, the causal mask
  std::vector<Tensor> steps;   // q, k, v, k^T, q k^T, scores, masked, weights, out, out^2, loss
  Tensor loss;
};

// Clears this thread's tape (the entries are numbered from 0), then computes the example with
// values drawn from `seed`.
AttentionExample attention_example(uint64_t seed);

}  // namespace tg::cli
