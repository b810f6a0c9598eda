#include "train/kv_cache.h"

#include <fmt/format.h>

#include "core/copy.h"
#include "core/error.h"
#include "core/factories.h"
#include "core/grad_mode.h"
#include "core/numerics.h"
#include "nn/attention.h"
#include "nn/feed_forward.h"
#include "ops/add/add.h"
#include "ops/reshape/reshape.h"
#include "ops/slice/slice.h"
#include "ops/to/to.h"
#include "ops/transpose/transpose.h"
#include "ops/unsqueeze/unsqueeze.h"

namespace tg::train {

namespace {

constexpr const char* kKvCacheOp = "KvCache";

// (1,n,E) -> projection -> (1,n,NH,hs) -> (1,NH,n,hs)
Tensor heads(const nn::Linear& proj, const Tensor& x, int64_t NH) {
  const int64_t n = x.size(1), E = x.size(2);
  return transpose(reshape(proj.forward(x), {1, n, NH, E / NH}), 1, 2);
}

// (n,S) bool, true = masked out: new position P+i sees keys j <= P+i. None when n == 1.
Tensor causal_mask_after(int64_t P, int64_t n, Device device) {
  if (n == 1) return {};
  const int64_t S = P + n;
  std::vector<bool> masked(n * S);
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < S; ++j) masked[i * S + j] = j > P + i;
  return tensor_bool(masked, {n, S}, device);
}

}  // namespace

KvCache::KvCache(const TransformerModel& model) : model_(model) {
  if (!model.config.causal)
    throw Error(kKvCacheOp, "the model is not causal: a key/value cache needs a language model (task lm)");
  keys_.resize(model.encoder->layers.size());
  values_.resize(model.encoder->layers.size());
}

void KvCache::clear() { size_ = 0; }  // the buffers stay, to be overwritten

Tensor KvCache::append(const std::vector<int64_t>& ids) {
  return append(tensor_i64(ids, {static_cast<int64_t>(ids.size())}));
}

Tensor KvCache::append(const Tensor& ids) {
  if (GradMode::enabled())
    throw Error(kKvCacheOp, "append is inference only (the cache records no tape and keeps no history): run it under "
                     "NoGradGuard, not with grad mode on");
  if (model_.is_training())
    throw Error(kKvCacheOp, "the model is in training mode: call eval() first (dropout would differ between positions)");
  if (!ids.defined() || ids.dim() != 1 || ids.dtype() != kI64 || ids.numel() == 0)
    throw Error(kKvCacheOp, fmt::format("expected ids (n,) int64 with n >= 1, got {}",
                                 ids.defined() ? ids.describe() : "undefined"));
  const int64_t P = size_, n = ids.numel();
  if (n > capacity() - P)
    throw Error(kKvCacheOp, fmt::format("{} new positions after the {} cached pass the model's max_len ({}): clear() the "
                                 "cache or keep the context shorter", n, P, capacity()));
  const NumericsGuard numerics(model_.config.numerics);
  const Device device = model_.embedding->weight.device();
  const int64_t NH = model_.config.heads, E = model_.config.d_model;

  // (1,n,E): the tokens and their absolute positions P .. P+n-1
  Tensor x = model_.embedding->forward(unsqueeze(to(ids, device), 0));
  x = add(x, slice(model_.pos_encoding->table, 0, P, P + n));  // + (n,E)
  AttentionOptions attention;
  attention.attn_mask = causal_mask_after(P, n, device);
  for (size_t l = 0; l < keys_.size(); ++l) {
    const nn::EncoderLayer& layer = *model_.encoder->layers[l];
    const nn::MultiHeadAttention& sa = *layer.self_attn;
    const Tensor h = layer.norm1->forward(x);
    const Tensor q = heads(*sa.q_proj, h, NH), k = heads(*sa.k_proj, h, NH), v = heads(*sa.v_proj, h, NH);
    if (!keys_[l].defined()) {  // (1,NH,max_len,hs) each, filled position by position
      keys_[l] = empty({1, NH, capacity(), E / NH}, k.dtype(), device);
      values_[l] = empty({1, NH, capacity(), E / NH}, v.dtype(), device);
    }
    copy_(slice_view(keys_[l], 2, P, P + n), k);
    copy_(slice_view(values_[l], 2, P, P + n), v);
    const Tensor K = slice_view(keys_[l], 2, 0, P + n), V = slice_view(values_[l], 2, 0, P + n);  // (1,NH,S,hs)
    const Tensor o = scaled_dot_product_attention(q, K, V, attention).output;  // (1,NH,n,hs)
    x = add(x, sa.out_proj->forward(reshape(transpose(o, 1, 2), {1, n, E})));
    const Tensor hidden = nn::activate(layer.linear1->forward(layer.norm2->forward(x)), layer.config.activation);
    x = add(x, layer.linear2->forward(hidden));
  }
  size_ = P + n;
  return reshape(model_.logits(model_.encoder->norm->forward(x)), {n, model_.config.num_classes});  // (n,C)
}

}  // namespace tg::train
