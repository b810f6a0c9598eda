#include "ops/max/max.h"

#include "core/cuda/cuda_only.h"
#include "core/factories.h"
#include "core/tape.h"
#include "ops/common/reduce_shape.h"
#include "ops/reshape/reshape.h"

namespace tg {

MaxResult max_with_indices(const Tensor& x, int64_t dim, bool keepdim) {
  check_floating(x, "max", "x");
  ReduceShape r = reduce_shape(x, {dim}, keepdim, "max");
  const int64_t k = wrap_dim(dim, x.dim(), "max", x.shape());
  if (r.count == 0)
    throw Error("max", fmt::format("cannot reduce over zero elements: dim {} of x {} has size 0", dim,
                                   shape_str(x.shape())));
  Tensor values = empty(r.keep, x.dtype(), x.device()), indices = empty(r.keep, kI64, x.device());
  if (x.is_cuda())
    TG_CUDA_ONLY(max_forward_cuda(values, indices, x, k));
  else
    max_forward_cpu(values, indices, x, k);
  MaxResult result{values, indices};
  if (!keepdim)  // drop the reduced dim
    result = {make_view(values, r.out, contiguous_strides(r.out), 0),
              make_view(indices, r.out, contiguous_strides(r.out), 0)};
  if (Recorder rec("max", {x}, {result.values, result.indices}); rec) {
    rec.attr("dim", dim).attr("keepdim", keepdim).save("indices", indices);
    rec.backward([keep = r.keep, k](const BackwardContext& ctx) -> TensorList {
      // grad (out shape) -> (keep shape), scattered along dim k to the saved positions
      Tensor dx = empty(ctx.input_shape(0), ctx.input_dtype(0), ctx.grad().device());
      if (dx.is_cuda())
        TG_CUDA_ONLY(max_backward_cuda(dx, ctx.saved("indices"), reshape(ctx.grad(), keep), k));
      else
        max_backward_cpu(dx, ctx.saved("indices"), reshape(ctx.grad(), keep), k);
      return {dx};
    });
  }
  return result;
}

Tensor max(const Tensor& x, int64_t dim, bool keepdim) { return max_with_indices(x, dim, keepdim).values; }

Tensor max(const Tensor& x) {
  check_floating(x, "max", "x");
  if (x.numel() == 0)
    throw Error("max", fmt::format("cannot reduce over zero elements: x {} is empty", shape_str(x.shape())));
  Tensor out = empty({}, x.dtype(), x.device()), index = empty({}, kI64, x.device());
  if (x.is_cuda())
    TG_CUDA_ONLY(max_all_forward_cuda(out, index, x));
  else
    max_all_forward_cpu(out, index, x);
  if (Recorder rec("max", {x}, {out}); rec) {
    rec.save("index", index);
    rec.backward([](const BackwardContext& ctx) -> TensorList {
      // index is a row-major position: scatter grad into dx viewed as (numel,) along dim 0
      Tensor dx = empty(ctx.input_shape(0), ctx.input_dtype(0), ctx.grad().device());
      const Tensor flat_dx = reshape(dx, {-1}), index = reshape(ctx.saved("index"), {1}),
                   grad = reshape(ctx.grad(), {1});
      if (dx.is_cuda())
        TG_CUDA_ONLY(max_backward_cuda(flat_dx, index, grad, 0));
      else
        max_backward_cpu(flat_dx, index, grad, 0);
      return {dx};
    });
  }
  return out;
}

}  // namespace tg
