#include "nn/multi_head_attention.h"

#include <fmt/format.h>

#include <algorithm>
#include <span>

#include "core/factories.h"
#include "nn/attention_kernel.h"
#include "ops/fused/fused_attention/fused_attention.h"
#include "ops/mean/mean.h"
#include "ops/reshape/reshape.h"
#include "ops/transpose/transpose.h"

namespace tg::nn {

namespace {

constexpr const char* kMultiHeadAttentionModule = "MultiHeadAttention";

// The errors of a bad call name the module and its scores (B,NH,T,S).
constexpr AttentionEntry kEntry{kMultiHeadAttentionModule, "(B,NH,T,S)", " (PyTorch's (B*NH,T,S) is accepted too)"};

// PyTorch's 3-D mask (B*NH,T,S) read as (B,NH,T,S) (a view); any other mask as it is, to
// broadcast to the scores (B,NH,T,S).
Tensor per_head_mask(const Tensor& mask, int64_t B, int64_t NH) {
  if (mask.defined() && mask.dim() == 3 && mask.size(0) == B * NH)
    return reshape(mask, {B, NH, mask.size(1), mask.size(2)});
  return mask;
}

// Self-attention's q, k and v products and the fused kernel after them in one parallel region:
// the call is checked on views of the products' outputs as heads, which nothing has written or
// recorded yet; the heads recorded after the products name them again for the fused_attention
// entry. query (B,T,E) contiguous on the CPU -> the heads merged (B,T,E).
Tensor self_attention_in_one_region(std::span<const Linear* const> projections, const Tensor& query, int64_t NH,
                                    const AttentionOptions& attention) {
  const int64_t B = query.size(0), T = query.size(1), E = query.size(2), hs = E / NH;
  TensorList ys;
  for (int i = 0; i < 3; ++i) ys.push_back(empty({B, T, E}, query.dtype(), query.device()));
  auto head_view = [&](const Tensor& y) { return make_view(y, {B, NH, T, hs}, {T * E, hs, E, 1}, y.offset()); };
  const FusedAttentionRun run(
      AttentionSpec::check(kEntry, AttentionKernel::fused, head_view(ys[0]), head_view(ys[1]), head_view(ys[2]),
                           attention));
  const GemmSideWork kernel_after = run.after_products();
  Linear::forward_together_into(projections, query, ys, {&kernel_after, 1});
  // (B,T,E) -> (B,T,NH,hs) -> (B,NH,T,hs), recorded
  auto heads = [&](const Tensor& y) { return transpose(reshape(y, {B, T, NH, hs}), 1, 2); };
  const Tensor out = run.record(heads(ys[0]), heads(ys[1]), heads(ys[2]));  // (B,NH,T,hs)
  return reshape(transpose(out, 1, 2), {B, T, E});                        // (B,T,NH,hs) -> (B,T,E)
}

}  // namespace

MultiHeadAttention::MultiHeadAttention(int64_t d_model, int64_t num_heads, double dropout, bool bias)
    : Module(kMultiHeadAttentionModule), d_model(d_model), num_heads(num_heads), head_size(0), dropout(dropout) {
  if (d_model <= 0 || num_heads <= 0 || d_model % num_heads != 0)
    throw Error(kMultiHeadAttentionModule, fmt::format("num_heads must be positive and divide d_model, got d_model={} num_heads={}",
                                     d_model, num_heads));
  if (!(dropout >= 0 && dropout <= 1)) throw Error(kMultiHeadAttentionModule, fmt::format("dropout must be in [0, 1], got {}", dropout));
  head_size = d_model / num_heads;
  q_proj = register_module("q_proj", std::make_shared<Linear>(d_model, d_model, bias));
  k_proj = register_module("k_proj", std::make_shared<Linear>(d_model, d_model, bias));
  v_proj = register_module("v_proj", std::make_shared<Linear>(d_model, d_model, bias));
  out_proj = register_module("out_proj", std::make_shared<Linear>(d_model, d_model, bias));
}

Tensor MultiHeadAttention::merged_heads(const Tensor& query, const Tensor& key, const Tensor& value,
                                        const MhaOptions& options, Tensor& weights) const {
  check_defined(query, kMultiHeadAttentionModule, "query");
  check_defined(key, kMultiHeadAttentionModule, "key");
  check_defined(value, kMultiHeadAttentionModule, "value");
  const int64_t E = d_model, NH = num_heads, hs = head_size;
  if (query.dim() != 3 || key.dim() != 3 || value.dim() != 3 || query.size(2) != E || key.size(2) != E ||
      value.size(2) != E || key.size(0) != query.size(0) || value.size(0) != query.size(0) ||
      value.size(1) != key.size(1))
    throw Error(kMultiHeadAttentionModule, fmt::format("expected query (B,T,{0}), key and value (B,S,{0}), got query {1} key {2} "
                                     "value {3}", E, shape_str(query.shape()), shape_str(key.shape()),
                                     shape_str(value.shape())));
  const int64_t B = query.size(0), T = query.size(1), S = key.size(1);

  const AttentionKernel kernel = choose_attention_kernel(
      {.fused = options.fused,
       .composed_module = is_composed(),
       .need_weights = options.need_weights,
       .additive_mask_requires_grad = options.additive_mask.defined() && options.additive_mask.requires_grad()});
  AttentionOptions attention;
  attention.attn_mask = per_head_mask(options.attn_mask, B, NH);
  attention.additive_mask = per_head_mask(options.additive_mask, B, NH);
  attention.key_padding_mask = options.key_padding_mask;
  attention.is_causal = options.is_causal;
  attention.dropout_p = dropout;
  attention.training = is_training();
  // The composed ops compute the weights anyway: the hooks see them.
  attention.need_weights = kernel == AttentionKernel::composed;
  // (B,L,E) -> (B,L,NH,hs) -> (B,NH,L,hs)
  auto heads = [&](const Tensor& projected, int64_t L) { return transpose(reshape(projected, {B, L, NH, hs}), 1, 2); };
  const bool self_attention = query.impl_ptr() == key.impl_ptr() && key.impl_ptr() == value.impl_ptr();
  const Linear* const projections[] = {q_proj.get(), k_proj.get(), v_proj.get()};
  const bool one_region = self_attention && kernel == AttentionKernel::fused && !query.is_cuda() &&
                          query.is_contiguous() && query.dtype() == q_proj->weight.dtype() &&
                          std::all_of(std::begin(projections), std::end(projections),
                                      [](const Linear* layer) { return layer->fusable(); });
  if (one_region) return self_attention_in_one_region(projections, query, NH, attention);
  const TensorList together = self_attention ? Linear::forward_together(projections, query) : TensorList{};
  auto projected = [&](int i, const Tensor& x) { return together.empty() ? projections[i]->forward(x) : together[i]; };
  const Tensor q = heads(projected(0, query), T), k = heads(projected(1, key), S), v = heads(projected(2, value), S);
  const AttentionResult a = run_attention(AttentionSpec::check(kEntry, kernel, q, k, v, attention));  // (B,NH,T,hs)

  weights = a.weights;
  return reshape(transpose(a.output, 1, 2), {B, T, E});  // (B,T,NH,hs) -> (B,T,E)
}

MhaResult MultiHeadAttention::forward(const Tensor& query, const Tensor& key, const Tensor& value,
                                      const MhaOptions& options) const {
  const ModuleScope in_module(path());
  Tensor weights;
  MhaResult result{out_proj->forward(merged_heads(query, key, value, options, weights)), Tensor(), Tensor()};
  if (options.need_weights) {
    result.weights = weights;
    result.mean_weights = mean(weights, {1});  // (B,NH,T,S) -> (B,T,S)
  }
  if (has_forward_hooks()) run_forward_hooks({query, key, value}, {result.output, weights});
  return result;
}

LinearOutput MultiHeadAttention::forward_to_out_proj(const Tensor& query, const Tensor& key, const Tensor& value,
                                                     const MhaOptions& options) const {
  if (has_forward_hooks() || options.need_weights) return {nullptr, forward(query, key, value, options).output};
  const ModuleScope in_module(path());
  Tensor weights;
  return {out_proj.get(), merged_heads(query, key, value, options, weights)};
}

}  // namespace tg::nn
