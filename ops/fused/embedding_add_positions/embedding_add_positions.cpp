#include "ops/fused/embedding_add_positions/embedding_add_positions.h"

#include <fmt/format.h>

#include "core/copy.h"
#include "core/cuda/cuda_only.h"
#include "core/factories.h"
#include "core/tape.h"
#include "ops/add/add.h"
#include "ops/common/contiguous_input.h"
#include "ops/common/op_doc.h"
#include "ops/embedding/embedding.h"
#include "ops/reshape/reshape.h"
#include "ops/slice/slice.h"
#include "ops/sum/sum.h"

namespace tg {

namespace {

constexpr const char* kEmbeddingAddPositions = "embedding_add_positions";

void check_positions(const Tensor& indices, const Tensor& weight, const Tensor& positions) {
  check_defined(positions, kEmbeddingAddPositions, "positions");
  check_floating(positions, kEmbeddingAddPositions, "positions");
  check_same_dtype(weight, positions, kEmbeddingAddPositions);
  check_same_device(weight, positions, kEmbeddingAddPositions);
  if (indices.dim() < 1 || positions.dim() != 2 || positions.size(1) != weight.size(1) ||
      positions.size(0) < indices.size(-1))
    throw Error(kEmbeddingAddPositions,
                fmt::format("expected indices (..., T), weight (V, C) and positions (P, C) with P >= T, got indices {} "
                            "weight {} positions {}", shape_str(indices.shape()), shape_str(weight.shape()),
                            shape_str(positions.shape())));
}

// The positions' gradient from grad (..., T, C), with ops: its sum over the leading dims in the
// first T rows (sum_to's), the rows after them zero (slice's backward).
Tensor positions_grad_reference(const Tensor& grad, const Shape& positions_shape, int64_t T) {
  if (grad.numel() == 0) return zeros(positions_shape, grad.dtype(), grad.device());  // no sequence, or T = 0
  const Tensor rows = sum(reshape(grad, {-1, T, positions_shape[1]}), {0});  // (T, C)
  return spread_into_zeros(rows, positions_shape, 0, 0, T, 1);
}

// The fast rule: on the CPU one kernel in one parallel region; on a GPU embedding's kernel and
// the positions' sum with ops.
TensorList embedding_positions_fast_backward(const BackwardContext& ctx, int64_t T, int64_t padding_idx) {
  const Tensor dout = contiguous_or_copy(ctx.grad());  // (..., T, C)
  const Tensor dweight = ctx.needs_grad(1) ? zeros(ctx.input_shape(1), ctx.input_dtype(1), dout.device()) : Tensor();
  if (dout.is_cuda()) {
    if (dweight.defined()) TG_CUDA_ONLY(embedding_backward_cuda(dweight, dout, ctx.saved("indices"), padding_idx));
    return {Tensor(), dweight, ctx.needs_grad(2) ? positions_grad_reference(dout, ctx.input_shape(2), T) : Tensor()};
  }
  const Tensor dpositions = ctx.needs_grad(2) ? empty(ctx.input_shape(2), ctx.input_dtype(2), dout.device()) : Tensor();
  embedding_add_positions_backward_cpu(dweight, dpositions, flatten_rows(dout), ctx.saved("indices"), T,
                                       padding_idx);
  return {Tensor(), dweight, dpositions};
}

}  // namespace

TG_OP_DOC(embedding_add_positions) {
  return {.summary = "token embeddings plus position embeddings in one pass each way",
          .forward_text = "out[..., t, c] = weight[indices[..., t], c] + positions[t, c]",
          .forward_tex = R"(\mathrm{out}_{i,t,c} = W_{\mathrm{idx}_{i,t},\, c} + P_{t,c})",
          .backward = {{"weight",
                        "dL/dweight[v, c] = sum of dL/dout[i, t, c] over the positions (i, t) with indices[i, t] == v "
                        "(0 for the padding_idx row)",
                        R"(\dLd{W_{v,c}} = \sum_{(i,t) \,:\, \mathrm{idx}_{i,t} = v} \dLd{\mathrm{out}_{i,t,c}})"},
                       {"positions",
                        "dL/dpositions[t, c] = sum over i of dL/dout[i, t, c] (0 for t >= T)",
                        R"(\dLd{P_{t,c}} = \sum_i \dLd{\mathrm{out}_{i,t,c}})"}}};
}

Tensor embedding_add_positions(const Tensor& indices, const Tensor& weight, const Tensor& positions,
                               int64_t padding_idx) {
  check_embedding_args(indices, weight, padding_idx, kEmbeddingAddPositions);
  check_positions(indices, weight, positions);
  const int64_t T = indices.size(-1), C = weight.size(1);
  const Tensor idx = contiguous_or_copy(indices);
  Shape out_shape = indices.shape();
  out_shape.push_back(C);
  Tensor out = empty(out_shape, weight.dtype(), weight.device());
  if (weight.is_cuda()) {
    TG_CUDA_ONLY(embedding_forward_cuda(out, idx, weight));  // then the positions, added to every sequence
    const Tensor first = slice(positions.detach(), 0, 0, T);
    add_into_(out, make_view(first, out_shape, broadcast_strides(first.shape(), first.strides(), out_shape),
                             first.offset()));
  } else if (out.numel() > 0) {
    embedding_forward_cpu(out, idx, weight, positions, T);
  }
  if (Recorder rec(kEmbeddingAddPositions, {indices, weight, positions}, {out}); rec) {
    rec.attr("padding_idx", padding_idx);
    rec.save("indices", idx);
    rec.forward([&](const ForwardContext& f) -> TensorList {
      Tensor t;
      if (f.has_tangent(1)) t = embedding_tangent(idx, f.tangent(1), padding_idx);
      if (f.has_tangent(2)) {
        const Tensor positions_tangent = slice(f.tangent(2), 0, 0, T);
        t = add(t.defined() ? t : zeros(out_shape, out.dtype(), out.device()), positions_tangent);
      }
      return {t};
    });
    auto reference = [padding_idx, T](const BackwardContext& ctx) -> TensorList {
      const Tensor& grad = ctx.grad();
      return {Tensor(),
              ctx.needs_grad(1) ? embedding_reference_dweight(ctx.saved("indices"), grad, ctx.input_shape(1),
                                                              padding_idx)
                                : Tensor(),
              ctx.needs_grad(2) ? positions_grad_reference(grad, ctx.input_shape(2), T) : Tensor()};
    };
    rec.backward(reference, [padding_idx, T](const BackwardContext& ctx) {
      return embedding_positions_fast_backward(ctx, T, padding_idx);
    });
  }
  return out;
}

}  // namespace tg
