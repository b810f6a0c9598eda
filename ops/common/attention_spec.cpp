#include "ops/common/attention_spec.h"

#include <cmath>
#include <string>

#include <fmt/format.h>

#include "core/error.h"
#include "core/grad_mode.h"

namespace tg {

namespace {

std::string spec_shapes(const Tensor& q, const Tensor& k, const Tensor& v) {
  return fmt::format("q {} k {} v {}", shape_str(q.shape()), shape_str(k.shape()), shape_str(v.shape()));
}

Shape batch_dims(const Tensor& t) { return Shape(t.shape().begin(), t.shape().end() - 2); }

// The scores' shape (..., T, S) for the kernel, once q, k and v are known to have >= 2 dims.
Shape scores_shape(const AttentionEntry& entry, AttentionKernel kernel, const Tensor& q, const Tensor& k,
                   const Tensor& v) {
  const int64_t T = q.size(-2), S = k.size(-2);
  const bool same_heads = q.dim() == 4 && k.dim() == 4 && v.dim() == 4 && k.size(0) == q.size(0) &&
                          v.size(0) == q.size(0) && k.size(1) == q.size(1) && v.size(1) == q.size(1);
  if (same_heads) return {q.size(0), q.size(1), T, S};  // (B,H,T,S): every module's call
  if (kernel == AttentionKernel::fused) {  // the kernel walks (b, h) pairs: no broadcasting
    if (q.dim() != 4 || k.dim() != 4 || v.dim() != 4)
      throw Error(entry.name, fmt::format("q, k and v must be 4-D (B,H,T,hs), (B,H,S,hs), (B,H,S,hv), got {}",
                                          spec_shapes(q, k, v)));
    throw Error(entry.name, fmt::format("q, k and v must have the same (B,H) (no broadcasting), got {}",
                                        spec_shapes(q, k, v)));
  }
  Shape scores;
  try {
    scores = broadcast_shapes(batch_dims(q), batch_dims(k), entry.name);  // q k^T
    broadcast_shapes(scores, batch_dims(v), entry.name);                  // weights v
  } catch (const Error&) {
    throw Error(entry.name, fmt::format("the batch dims of q, k and v do not broadcast: {}", spec_shapes(q, k, v)));
  }
  scores.push_back(T);
  scores.push_back(S);
  return scores;
}

// A mask read as broadcast (one way, right-aligned) to the scores.
void check_broadcasts_to_scores(const AttentionEntry& entry, const Tensor& mask, const char* name, const Tensor& q,
                                const Shape& scores) {
  check_same_device(q, mask, entry.name);
  const int64_t rank = static_cast<int64_t>(scores.size());
  bool fits = mask.dim() <= rank;
  for (int64_t d = 1; fits && d <= mask.dim(); ++d) fits = mask.size(-d) == 1 || mask.size(-d) == scores[rank - d];
  if (!fits)
    throw Error(entry.name, fmt::format("{} {} does not broadcast to the scores {} = {}{}", name,
                                        shape_str(mask.shape()), rank == 4 ? entry.scores_dims : "(...,T,S)",
                                        shape_str(scores), entry.mask_shapes_note));
}

void check_masks(const AttentionEntry& entry, AttentionKernel kernel, const Tensor& q, const AttentionOptions& o,
                 const Shape& scores) {
  if (o.attn_mask.defined()) {
    if (o.attn_mask.dtype() != kBool)
      throw Error(entry.name, fmt::format("attn_mask must be bool (true = masked out), got {} {}; pass float masks "
                                          "as additive_mask", dtype_name(o.attn_mask.dtype()),
                                          shape_str(o.attn_mask.shape())));
    check_broadcasts_to_scores(entry, o.attn_mask, "attn_mask", q, scores);
  }
  if (o.key_padding_mask.defined()) {
    const Tensor& m = o.key_padding_mask;
    const int64_t B = scores.size() > 2 ? scores.front() : 1, S = scores.back();
    if (m.dtype() != kBool || m.dim() != 2 || m.size(0) != B || m.size(1) != S)
      throw Error(entry.name, fmt::format("key_padding_mask must be bool (B,S) = ({},{}), got {} {}", B, S,
                                          dtype_name(m.dtype()), shape_str(m.shape())));
    check_same_device(q, m, entry.name);
  }
  if (o.additive_mask.defined()) {
    const Tensor& m = o.additive_mask;
    if (m.dtype() != q.dtype())
      throw Error(entry.name, fmt::format("additive_mask must have q's dtype {}, got {} {}", dtype_name(q.dtype()),
                                          dtype_name(m.dtype()), shape_str(m.shape())));
    if (kernel == AttentionKernel::fused && m.requires_grad() && GradMode::enabled())
      throw Error(entry.name, fmt::format("additive_mask {} requires grad, but its gradient would be a (T,S) tensor, "
                                          "which this op never forms: use scaled_dot_product_attention",
                                          shape_str(m.shape())));
    check_broadcasts_to_scores(entry, m, "additive_mask", q, scores);
  }
}

}  // namespace

AttentionSpec AttentionSpec::check(const AttentionEntry& entry, AttentionKernel kernel, const Tensor& q,
                                   const Tensor& k, const Tensor& v, const AttentionOptions& o) {
  check_floating(q, entry.name, "q");
  check_floating(k, entry.name, "k");
  check_floating(v, entry.name, "v");
  check_same_dtype(q, k, entry.name);
  check_same_dtype(q, v, entry.name);
  check_same_device(q, k, entry.name);
  check_same_device(q, v, entry.name);
  if (q.dim() < 2 || k.dim() < 2 || v.dim() < 2)
    throw Error(entry.name, fmt::format("q, k and v need at least 2 dims (..., T, head_dim), got {}", spec_shapes(q, k, v)));
  if (q.size(-1) != k.size(-1)) throw Error(entry.name, fmt::format("q and k head dims differ: {}", spec_shapes(q, k, v)));
  if (k.size(-2) != v.size(-2))
    throw Error(entry.name, fmt::format("k and v have different numbers of keys: {}", spec_shapes(q, k, v)));
  AttentionSpec spec(kernel, q, k, v, o);
  spec.scores_ = scores_shape(entry, kernel, q, k, v);
  check_masks(entry, kernel, q, o, spec.scores_);
  if (o.scale && !(std::isfinite(*o.scale) && *o.scale > 0))
    throw Error(entry.name, fmt::format("scale must be a positive finite number, got {}", *o.scale));
  if (kernel == AttentionKernel::fused && o.need_weights)
    throw Error(entry.name, "need_weights: the (T,S) weights are what this op never forms; use "
                            "scaled_dot_product_attention");
  if (o.training && !(o.dropout_p >= 0 && o.dropout_p <= 1))
    throw Error(entry.name, fmt::format("dropout_p must be in [0, 1], got {} ({})", o.dropout_p, spec_shapes(q, k, v)));
  spec.scale_ = o.scale.value_or(1.0 / std::sqrt(static_cast<double>(q.size(-1))));
  return spec;
}

}  // namespace tg
