#include "ops/embedding/embedding.h"

#include <fmt/format.h>

#include "core/copy.h"
#include "core/cuda/cuda_only.h"
#include "core/factories.h"
#include "core/tape.h"
#include "ops/common/contiguous_input.h"
#include "ops/common/index_check.h"

namespace tg {

Tensor embedding(const Tensor& indices, const Tensor& weight, int64_t padding_idx) {
  check_floating(weight, "embedding", "weight");
  if (weight.dim() != 2)
    throw Error("embedding", fmt::format("weight must be 2-D (V, C), got {}", shape_str(weight.shape())));
  const int64_t V = weight.size(0), C = weight.size(1);
  if (padding_idx != -1 && (padding_idx < 0 || padding_idx >= V))
    throw Error("embedding", fmt::format("padding_idx {} is out of range for weight {} (expected -1 for none, "
                                         "or 0..{})", padding_idx, shape_str(weight.shape()), V - 1));
  check_indices(indices, V, "embedding", "index", fmt::format("for weight {}", shape_str(weight.shape())));
  check_same_device(indices, weight, "embedding");
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
    rec.backward([padding_idx](const BackwardContext& ctx) -> TensorList {
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
