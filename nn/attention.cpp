#include "nn/attention.h"

#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "ops/add/add.h"
#include "ops/dropout/dropout.h"
#include "ops/masked_fill/masked_fill.h"
#include "ops/matmul/matmul.h"
#include "ops/mul/mul.h"
#include "ops/reshape/reshape.h"
#include "ops/softmax/softmax.h"
#include "ops/transpose/transpose.h"

namespace tg {

namespace {

constexpr const char* kOp = "scaled_dot_product_attention";

void check_inputs(const Tensor& q, const Tensor& k, const Tensor& v, const AttentionOptions& o) {
  check_floating(q, kOp, "q");
  check_floating(k, kOp, "k");
  check_floating(v, kOp, "v");
  if (q.dim() < 2 || k.dim() < 2 || v.dim() < 2)
    throw Error(kOp, fmt::format("q, k and v need at least 2 dims (..., T, head_dim), got q {} k {} v {}",
                                 shape_str(q.shape()), shape_str(k.shape()), shape_str(v.shape())));
  if (q.size(-1) != k.size(-1))
    throw Error(kOp, fmt::format("q and k head dims differ: q {} k {}", shape_str(q.shape()), shape_str(k.shape())));
  if (k.size(-2) != v.size(-2))
    throw Error(kOp, fmt::format("k and v have different numbers of keys: k {} v {}", shape_str(k.shape()),
                                 shape_str(v.shape())));
  if (o.attn_mask.defined() && o.attn_mask.dtype() != kBool)
    throw Error(kOp, fmt::format("attn_mask must be bool (true = masked out), got {} {}; pass float masks "
                                 "as additive_mask", dtype_name(o.attn_mask.dtype()), shape_str(o.attn_mask.shape())));
  if (o.key_padding_mask.defined()) {
    const Tensor& m = o.key_padding_mask;
    if (m.dtype() != kBool || m.dim() != 2 || m.size(1) != k.size(-2) || (q.dim() > 2 && m.size(0) != q.size(0)))
      throw Error(kOp, fmt::format("key_padding_mask must be bool (B, S) = ({}, {}), got {} {}",
                                   q.dim() > 2 ? q.size(0) : m.size(0), k.size(-2), dtype_name(m.dtype()),
                                   shape_str(m.shape())));
  }
  if (o.additive_mask.defined()) check_floating(o.additive_mask, kOp, "additive_mask");
  if (o.scale && !(std::isfinite(*o.scale) && *o.scale > 0))
    throw Error(kOp, fmt::format("scale must be a positive finite number, got {}", *o.scale));
}

}  // namespace

AttentionResult scaled_dot_product_attention(const Tensor& q, const Tensor& k, const Tensor& v,
                                             const AttentionOptions& o) {
  check_inputs(q, k, v, o);
  const int64_t T = q.size(-2), S = k.size(-2);
  const double scale = o.scale.value_or(1.0 / std::sqrt(static_cast<double>(q.size(-1))));
  const double neg_inf = -std::numeric_limits<double>::infinity();

  Tensor scores = mul(matmul(q, transpose(k, -2, -1)), scale);  // (..., T, S)
  if (o.additive_mask.defined()) scores = add(scores, o.additive_mask);
  if (o.attn_mask.defined()) scores = masked_fill(scores, o.attn_mask, neg_inf);
  if (o.is_causal) scores = masked_fill(scores, causal_mask(T, S, q.device()), neg_inf);
  if (o.key_padding_mask.defined()) {
    // (B, S) -> (B, 1, ..., 1, S) so it broadcasts over heads and queries.
    Shape shape(scores.dim(), 1);
    shape.front() = o.key_padding_mask.size(0);
    shape.back() = S;
    scores = masked_fill(scores, reshape(o.key_padding_mask, shape), neg_inf);
  }
  Tensor weights = softmax(scores, -1);
  Tensor attended = weights;
  if (o.training && o.dropout_p > 0)
    attended = dropout(weights, o.dropout_p, true, o.generator ? *o.generator : default_generator());
  return {matmul(attended, v), o.need_weights ? weights : Tensor()};
}

}  // namespace tg
