#include "ops/max/max.h"

#include "core/cuda/cuda_only.h"
#include "core/factories.h"
#include "core/grad_mode.h"
#include "core/tape.h"
#include "ops/common/op_doc.h"
#include "ops/common/reduce_shape.h"
#include "ops/expand/expand.h"
#include "ops/mul/mul.h"
#include "ops/reshape/reshape.h"
#include "ops/sum/sum.h"

namespace tg {

namespace {

// dx = 0 except dx[..., indices, ...] = grad along dim k: the backward kernel of x's device.
// indices, grad (x's shape with dim k as size 1).
Tensor scatter_to_argmax(const Shape& x_shape, DType dtype, const Tensor& indices, const Tensor& grad, int64_t k) {
  Tensor dx = empty(x_shape, dtype, grad.device());
  if (dx.is_cuda())
    TG_CUDA_ONLY(max_backward_cuda(dx, indices, grad, k));
  else
    max_backward_cpu(dx, indices, grad, k);
  return dx;
}

// 1 at each maximum's position along dim k, else 0 (x's shape and dtype): the derivative of
// the max with respect to x, a constant, since the argmax moves only where it jumps.
Tensor argmax_one_hot(const Shape& x_shape, DType dtype, const Tensor& indices, int64_t k) {
  NoGradGuard no_grad;
  return scatter_to_argmax(x_shape, dtype, indices, ones(indices.shape(), dtype, indices.device()), k);
}

// The same for max(x): index () is a row-major position, so x is seen as (numel,) along dim 0.
Tensor max_all_one_hot(const Shape& x_shape, DType dtype, const Tensor& index) {
  return reshape(argmax_one_hot({numel(x_shape)}, dtype, reshape(index, {1}), 0), x_shape);
}

}  // namespace

TG_OP_DOC(max) {
  return {.summary = "the largest element over one dim (with its position) or over all",
          .forward_text = "out = max_k x_k over dim k (indices = its first argmax), or the max of all "
                          "elements",
          .forward_tex = R"(\mathrm{out} = \max_k x_k)",
          .backward = {{"x",
                        "dL/dx = zeros(x.shape) with dL/dx[indices] = dL/dout (the first maximum gets it all)",
                        R"(\dLd{x_k} = [k = \operatorname{argmax}_j x_j]\; \dLd{\mathrm{out}})"}}};
}

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
    rec.forward([&](const ForwardContext& f) -> TensorList {  // the tangent at each maximum
      const Tensor one_hot = argmax_one_hot(x.shape(), x.dtype(), indices, k);
      return {sum(mul(f.tangent(0), one_hot), {k}, keepdim), Tensor()};
    });
    rec.backward(
        [keep = r.keep, k](const BackwardContext& ctx) -> TensorList {
          // grad (out shape) -> (keep shape) -> x's shape, kept at the maxima only
          const Tensor one_hot = argmax_one_hot(ctx.input_shape(0), ctx.input_dtype(0), ctx.saved("indices"), k);
          return {mul(expand(reshape(ctx.grad(), keep), ctx.input_shape(0)), one_hot)};
        },
        [keep = r.keep, k](const BackwardContext& ctx) -> TensorList {
          return {scatter_to_argmax(ctx.input_shape(0), ctx.input_dtype(0), ctx.saved("indices"),
                                    reshape(ctx.grad(), keep), k)};
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
    rec.forward([&](const ForwardContext& f) -> TensorList {
      return {sum(mul(f.tangent(0), max_all_one_hot(x.shape(), x.dtype(), index)))};
    });
    rec.backward(
        [](const BackwardContext& ctx) -> TensorList {
          const Tensor one_hot = max_all_one_hot(ctx.input_shape(0), ctx.input_dtype(0), ctx.saved("index"));
          return {mul(expand(ctx.grad(), ctx.input_shape(0)), one_hot)};
        },
        [](const BackwardContext& ctx) -> TensorList {
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
