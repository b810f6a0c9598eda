#include "ops/mean/mean.h"

#include "core/cuda/cuda_only.h"
#include "core/factories.h"
#include "core/tape.h"
#include "ops/common/op_doc.h"
#include "ops/common/reduce_shape.h"
#include "ops/div/div.h"
#include "ops/expand/expand.h"
#include "ops/reshape/reshape.h"

namespace tg {

TG_OP_DOC(mean) {
  return {.summary = "the average over some dims or all",
          .forward_text = "out = sum(x, dims) / n, n = the number of elements averaged",
          .forward_tex = R"(\mathrm{out} = \frac{1}{n} \sum_{k} x_k)",
          .backward = {{"x",
                        "dL/dx = expand(dL/dout, x.shape) / n",
                        R"(\dLd{x_k} = \dLd{\mathrm{out}} / n)"}}};
}

Tensor mean(const Tensor& x, const std::vector<int64_t>& dims, bool keepdim) {
  check_floating(x, "mean", "x");
  ReduceShape r = reduce_shape(x, dims, keepdim, "mean");
  Tensor out = empty(r.keep, x.dtype(), x.device());
  if (x.is_cuda())
    TG_CUDA_ONLY(mean_forward_cuda(out, x, r.count));
  else
    mean_forward_cpu(out, x, r.count);
  if (!keepdim) out = make_view(out, r.out, contiguous_strides(r.out), 0);  // drop the reduced dims
  if (Recorder rec("mean", {x}, {out}); rec) {
    rec.attr("dims", fmt::format("[{}]", fmt::join(dims, ","))).attr("keepdim", keepdim);
    rec.forward([&](const ForwardContext& f) -> TensorList { return {mean(f.tangent(0), dims, keepdim)}; });
    // grad (out shape) -> dx_keep (keep shape) = grad / count -> dx (x shape), a broadcast view
    auto reference = [keep = r.keep, count = r.count](const BackwardContext& ctx) -> TensorList {
      return {expand(div(reshape(ctx.grad(), keep), static_cast<double>(count)), ctx.input_shape(0))};
    };
    rec.backward(reference, [keep = r.keep, count = r.count](const BackwardContext& ctx) -> TensorList {
      Tensor dx_keep = empty(keep, ctx.grad().dtype(), ctx.grad().device());
      if (dx_keep.is_cuda())
        TG_CUDA_ONLY(mean_backward_cuda(dx_keep, reshape(ctx.grad(), keep), count));
      else
        mean_backward_cpu(dx_keep, reshape(ctx.grad(), keep), count);
      return {expand(dx_keep, ctx.input_shape(0))};
    });
  }
  return out;
}

Tensor mean(const Tensor& x) {
  check_floating(x, "mean", "x");
  return mean(x, all_dims(x), false);
}

}  // namespace tg
