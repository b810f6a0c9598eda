#include "ops/sum/sum.h"

#include <algorithm>

#include "core/factories.h"
#include "core/tape.h"
#include "ops/expand/expand.h"
#include "ops/reshape/reshape.h"

namespace tg {

namespace {

// The output shape with reduced dims kept as size 1.
Shape keepdim_shape(const Tensor& x, const std::vector<int64_t>& dims, const char* op) {
  Shape shape = x.shape();
  std::vector<bool> seen(x.dim(), false);
  for (int64_t d : dims) {
    int64_t k = wrap_dim(d, x.dim(), op, x.shape());
    if (x.dim() == 0) continue;
    if (seen[k]) throw Error(op, fmt::format("dim {} appears twice in dims for shape {}", d, shape_str(x.shape())));
    seen[k] = true;
    shape[k] = 1;
  }
  return shape;
}

}  // namespace

Tensor sum(const Tensor& x, const std::vector<int64_t>& dims, bool keepdim) {
  check_floating(x, "sum", "x");
  Shape keep = keepdim_shape(x, dims, "sum");
  Tensor out = empty(keep, x.dtype(), x.device());
  if (x.is_cuda())
    throw Error("sum", "no CUDA kernel yet for sum");
  sum_forward_cpu(out, x);
  if (!keepdim) {
    Shape squeezed;
    for (size_t d = 0; d < keep.size(); ++d)
      if (std::find_if(dims.begin(), dims.end(), [&](int64_t k) {
            return wrap_dim(k, x.dim(), "sum", x.shape()) == static_cast<int64_t>(d);
          }) == dims.end())
        squeezed.push_back(keep[d]);
    out = make_view(out, squeezed, contiguous_strides(squeezed), 0);
  }
  if (Recorder rec("sum", {x}, {out}); rec) {
    rec.attr("dims", fmt::format("[{}]", fmt::join(dims, ","))).attr("keepdim", keepdim);
    rec.backward([keep](const BackwardContext& ctx) -> TensorList {
      return {expand(reshape(ctx.grad(), keep), ctx.input_shape(0))};
    });
  }
  return out;
}

Tensor sum(const Tensor& x) {
  check_floating(x, "sum", "x");
  std::vector<int64_t> all(x.dim());
  for (int64_t d = 0; d < x.dim(); ++d) all[d] = d;
  return sum(x, all, false);
}

Tensor sum_to(const Tensor& grad, const Shape& shape) {
  if (grad.shape() == shape) return grad;
  const int64_t lead = grad.dim() - static_cast<int64_t>(shape.size());
  if (lead < 0)
    throw Error("sum_to", fmt::format("cannot reduce {} to the larger rank {}", shape_str(grad.shape()),
                                      shape_str(shape)));
  std::vector<int64_t> dims;
  for (int64_t d = 0; d < grad.dim(); ++d)
    if (d < lead || (shape[d - lead] == 1 && grad.size(d) != 1)) dims.push_back(d);
  return reshape(sum(grad, dims, true), shape);
}

}  // namespace tg
