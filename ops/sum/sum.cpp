#include "ops/sum/sum.h"

#include "core/cuda/cuda_only.h"
#include "core/factories.h"
#include "core/tape.h"
#include "ops/common/op_doc.h"
#include "ops/common/reduce_shape.h"
#include "ops/expand/expand.h"
#include "ops/reshape/reshape.h"

namespace tg {

TG_OP_DOC(sum) {
  return {.summary = "adds up the elements over some dims or all",
          .forward_text = "out = sum of x over dims (or all)",
          .forward_tex = R"(\mathrm{out} = \sum_k x_k)",
          .backward = {{"x",
                        "dL/dx = expand(dL/dout, x.shape) (the summed dims put back as size 1 first)",
                        R"(\dLd{x_k} = \dLd{\mathrm{out}})"}}};
}

Tensor sum(const Tensor& x, const std::vector<int64_t>& dims, bool keepdim) {
  check_floating(x, "sum", "x");
  ReduceShape r = reduce_shape(x, dims, keepdim, "sum");
  Tensor out = empty(r.keep, x.dtype(), x.device());
  if (x.is_cuda())
    TG_CUDA_ONLY(sum_forward_cuda(out, x));
  else
    sum_forward_cpu(out, x);
  if (!keepdim) out = make_view(out, r.out, contiguous_strides(r.out), 0);  // drop the reduced dims
  if (Recorder rec("sum", {x}, {out}); rec) {
    rec.attr("dims", fmt::format("[{}]", fmt::join(dims, ","))).attr("keepdim", keepdim);
    rec.forward([&](const ForwardContext& f) -> TensorList { return {sum(f.tangent(0), dims, keepdim)}; });
    rec.backward([keep = r.keep](const BackwardContext& ctx) -> TensorList {
      return {expand(reshape(ctx.grad(), keep), ctx.input_shape(0))};
    });
  }
  return out;
}

Tensor sum(const Tensor& x) {
  check_floating(x, "sum", "x");
  return sum(x, all_dims(x), false);
}

Tensor sum_to(const Tensor& grad, const Shape& shape) {
  if (grad.shape() == shape) return grad;
  const int64_t lead = grad.dim() - static_cast<int64_t>(shape.size());
  if (lead < 0)
    throw Error("sum_to", fmt::format("cannot reduce {} to the larger rank {}", shape_str(grad.shape()),
                                      shape_str(shape)));
  std::vector<int64_t> dims;
  for (int64_t d = 0; d < grad.dim(); ++d) {
    if (d >= lead && shape[d - lead] != 1 && shape[d - lead] != grad.size(d))
      throw Error("sum_to", fmt::format("cannot reduce {} to {} (dim {}: {} vs {})", shape_str(grad.shape()),
                                        shape_str(shape), d, grad.size(d), shape[d - lead]));
    if (d < lead || (shape[d - lead] == 1 && grad.size(d) != 1)) dims.push_back(d);
  }
  return reshape(sum(grad, dims, true), shape);
}

}  // namespace tg
