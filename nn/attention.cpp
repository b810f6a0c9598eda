#include "nn/attention.h"

#include <limits>

#include "ops/add/add.h"
#include "ops/common/elementwise.h"
#include "ops/dropout/dropout.h"
#include "ops/masked_fill/masked_fill.h"
#include "ops/matmul/matmul.h"
#include "ops/mul/mul.h"
#include "ops/reshape/reshape.h"
#include "ops/softmax/softmax.h"
#include "ops/transpose/transpose.h"

namespace tg {

namespace {

constexpr const char* kAttentionOp = "scaled_dot_product_attention";

}  // namespace

AttentionResult scaled_dot_product_attention(const Tensor& q, const Tensor& k, const Tensor& v,
                                             const AttentionOptions& options) {
  return scaled_dot_product_attention(AttentionSpec::check({kAttentionOp}, AttentionKernel::composed, q, k, v, options));
}

AttentionResult scaled_dot_product_attention(const AttentionSpec& spec) {
  const Tensor &q = spec.q(), &k = spec.k(), &v = spec.v();
  const AttentionOptions& o = spec.options();
  const int64_t T = q.size(-2), S = k.size(-2);
  const double scale = spec.scale();
  const double neg_inf = -std::numeric_limits<double>::infinity();

  // the scale is a constant on the tape: named, so that a page shows it as what it is
  Tensor scale_constant = scalar_like(q, scale).set_name(o.scale ? "scale" : "1/sqrt(d_k)");
  Tensor scores = mul(matmul(q, transpose(k, -2, -1)), scale_constant);  // (..., T, S)
  if (o.additive_mask.defined()) scores = add(scores, o.additive_mask);
  if (o.attn_mask.defined()) scores = masked_fill(scores, o.attn_mask, neg_inf);
  if (o.is_causal) scores = masked_fill(scores, causal_mask(T, S, q.device()).set_name("causal_mask"), neg_inf);
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
