#include "ops/embedding/embedding.h"

#include <vector>

#include <fmt/format.h>

#include "core/copy.h"
#include "core/cuda/cuda_only.h"
#include "core/factories.h"
#include "core/tape.h"
#include "ops/common/contiguous_input.h"
#include "ops/common/index_check.h"
#include "ops/common/one_hot.h"
#include "ops/common/op_doc.h"
#include "ops/matmul/matmul.h"
#include "ops/mul/mul.h"
#include "ops/reshape/reshape.h"
#include "ops/transpose/transpose.h"

namespace tg {

namespace {

// (V, 1): 1 for every row of the weight but padding_idx's, a constant. The padding row gets no
// gradient, so the rules treat it as a constant, in forward mode too.
Tensor rows_but_padding(int64_t V, int64_t padding_idx, DType dtype, Device device) {
  std::vector<double> keep(static_cast<size_t>(V), 1.0);
  keep[static_cast<size_t>(padding_idx)] = 0;
  return tensor(keep, {V, 1}, dtype, device);
}

}  // namespace

Tensor embedding_tangent(const Tensor& indices, const Tensor& tangent, int64_t padding_idx) {
  if (padding_idx == -1) return embedding(indices, tangent);  // the rows of weight's tangent
  return embedding(indices,
                   mul(tangent, rows_but_padding(tangent.size(0), padding_idx, tangent.dtype(), tangent.device())));
}

// dweight (V, C) = one_hot(indices)^T (V, N) @ grad (N, C), the one-hot 0 at padding_idx: a
// scatter-add written as a product, at the cost of the (N, V) one-hot.
Tensor embedding_reference_dweight(const Tensor& indices, const Tensor& grad, const Shape& weight_shape,
                                   int64_t padding_idx) {
  const int64_t N = indices.numel(), V = weight_shape[0], C = weight_shape[1];
  const Tensor hot = one_hot(indices, V, grad.dtype(), padding_idx);
  return matmul(transpose(reshape(hot, {N, V}), 0, 1), reshape(grad, {N, C}));
}

TG_OP_DOC(embedding) {
  return {.summary = "rows of a table looked up by integer index",
          .forward_text = "out[i, c] = weight[indices[i], c]",
          .forward_tex = R"(\mathrm{out}_{i,c} = W_{\mathrm{idx}_i,\, c})",
          .backward = {{"weight",
                        "dL/dweight[v, c] = sum of dL/dout[i, c] over the positions i with indices[i] == v (0 "
                        "for the padding_idx row)",
                        R"(\dLd{W_{v,c}} = \sum_{i \,:\, \mathrm{idx}_i = v} \dLd{\mathrm{out}_{i,c}})"}}};
}

void check_embedding_args(const Tensor& indices, const Tensor& weight, int64_t padding_idx, const char* op) {
  check_floating(weight, op, "weight");
  if (weight.dim() != 2) throw Error(op, fmt::format("weight must be 2-D (V, C), got {}", shape_str(weight.shape())));
  const int64_t V = weight.size(0);
  if (padding_idx != -1 && (padding_idx < 0 || padding_idx >= V))
    throw Error(op, fmt::format("padding_idx {} is out of range for weight {} (expected -1 for none, or 0..{})",
                                padding_idx, shape_str(weight.shape()), V - 1));
  check_indices(indices, V, op, "index", fmt::format("for weight {}", shape_str(weight.shape())));
  check_same_device(indices, weight, op);
}

Tensor embedding(const Tensor& indices, const Tensor& weight, int64_t padding_idx) {
  check_embedding_args(indices, weight, padding_idx, "embedding");
  const int64_t C = weight.size(1);
  const Tensor idx = contiguous_or_copy(indices);

  Shape out_shape = indices.shape();
  out_shape.push_back(C);
  Tensor out = empty(out_shape, weight.dtype(), weight.device());
  if (weight.is_cuda())
    TG_CUDA_ONLY(embedding_forward_cuda(out, idx, weight));
  else
    embedding_forward_cpu(out, idx, weight);
  if (Recorder rec("embedding", {indices, weight}, {out}); rec) {
    rec.attr("padding_idx", padding_idx);
    rec.save("indices", idx);
    rec.forward([&](const ForwardContext& f) -> TensorList {
      return {embedding_tangent(idx, f.tangent(1), padding_idx)};
    });
    auto reference = [padding_idx](const BackwardContext& ctx) -> TensorList {
      return {Tensor(), embedding_reference_dweight(ctx.saved("indices"), ctx.grad(), ctx.input_shape(1), padding_idx)};
    };
    rec.backward(reference, [padding_idx](const BackwardContext& ctx) -> TensorList {
      const Tensor& grad = ctx.grad();  // (I..., C), possibly an expanded view
      Tensor dweight = zeros(ctx.input_shape(1), ctx.input_dtype(1), grad.device());
      const Tensor dout = contiguous_or_copy(grad);
      if (grad.is_cuda())
        TG_CUDA_ONLY(embedding_backward_cuda(dweight, dout, ctx.saved("indices"), padding_idx));
      else
        embedding_backward_cpu(dweight, dout, ctx.saved("indices"), padding_idx);
      return {Tensor(), dweight};
    });
  }
  return out;
}

}  // namespace tg
