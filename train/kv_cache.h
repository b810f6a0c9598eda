#pragma once
// KvCache: a causal TransformerModel (either arch, train/model.h) run a few positions at a time,
// keeping every layer's keys and values, so that a new token costs O(T) (its own projections and
// one attention row over the T cached keys) instead of a forward of the whole prefix (O(T) rows
// through every projection and O(T^2) attention scores).
//
//   KvCache cache(model);             // empty; the model must be causal and in evaluation mode
//   NoGradGuard no_grad;              // the cache is inference only (below)
//   Tensor a = cache.append(prompt);  // ids (n,) int64 at positions P .. P+n-1 -> logits (n,C)
//   Tensor b = cache.append(next);    // P = the positions cached so far
//
// Per layer (pre-LN), with x (1,n,E) the new positions, P cached, S = P + n:
//   h       = norm1(x)
//   q, k, v = q_proj(h), k_proj(h), v_proj(h) -> (1,NH,n,hs) each
//   K, V    = k, v written at positions P .. S-1 of the layer's (1,NH,max_len,hs) buffers
//             (allocated once), read as their first S positions     (1,NH,S,hs)
//   x       = x + out_proj(attention(q, K, V))                 new position P+i sees keys j <= P+i
//   x       = x + linear2(activation(linear1(norm2(x))))
// logits = model.logits(encoder.norm(x)): the numbers model.forward gives at those positions.
//
// Inference only: nothing is recorded on the tape and the cached tensors carry no history, so
// append() throws unless grad mode is off (NoGradGuard), and also when the model is in training
// mode (dropout would make the cache disagree with itself). Positions are absolute: append()
// throws when P + n would pass the model's max_len; clear() empties the cache, keeping its
// buffers (allocated at the first append in the model's dtype and on its device: convert the
// model before building the cache). The attention is nn/attention.h's
// scaled_dot_product_attention: for one query row the (1,S) scores are small.
#include <cstdint>
#include <vector>

#include "core/tensor.h"
#include "train/model.h"

namespace tg::train {

class KvCache {
 public:
  explicit KvCache(const TransformerModel& model);

  // ids (n,) int64 on any device, n >= 1 -> logits (n,C) on the model's device.
  Tensor append(const Tensor& ids);
  Tensor append(const std::vector<int64_t>& ids);

  int64_t size() const { return size_; }  // positions cached (P)
  int64_t capacity() const { return model_.config.max_len; }
  void clear();

 private:
  const TransformerModel& model_;
  std::vector<Tensor> keys_, values_;  // per layer (1,NH,max_len,hs), the first size_ positions written
  int64_t size_ = 0;
};

}  // namespace tg::train
