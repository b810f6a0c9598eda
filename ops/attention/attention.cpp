#include "ops/attention/attention.h"

#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "core/factories.h"
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

Tensor causal_mask(int64_t T, int64_t S, Device device) {
  if (S < 0) S = T;
  if (T < 0) throw Error("causal_mask", fmt::format("negative size T={}", T));
  std::vector<bool> values(T * S);
  for (int64_t i = 0; i < T; ++i)
    for (int64_t j = 0; j < S; ++j) values[i * S + j] = j > i;
  return tensor_bool(values, {T, S}, device);
}

Tensor padding_mask(const std::vector<int64_t>& lengths, int64_t T, Device device) {
  const int64_t B = static_cast<int64_t>(lengths.size());
  std::vector<bool> values(B * T);
  for (int64_t b = 0; b < B; ++b) {
    if (lengths[b] < 0 || lengths[b] > T)
      throw Error("padding_mask", fmt::format("length {} of sequence {} is outside 0..{}", lengths[b], b, T));
    for (int64_t t = 0; t < T; ++t) values[b * T + t] = t >= lengths[b];
  }
  return tensor_bool(values, {B, T}, device);
}

}  // namespace tg
