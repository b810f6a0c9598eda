#include "ops/unsqueeze/unsqueeze.h"

#include "core/tape.h"
#include "ops/squeeze/squeeze.h"

namespace tg {

Tensor unsqueeze(const Tensor& x, int64_t dim) {
  check_defined(x, "unsqueeze", "x");
  const int64_t d = wrap_dim(dim, x.dim() + 1, "unsqueeze", x.shape());
  Shape shape = x.shape(), strides = x.strides();
  // Any stride is valid for a size-1 dim; this one keeps a contiguous x contiguous.
  const int64_t stride = d < x.dim() ? x.size(d) * x.strides()[d] : 1;
  shape.insert(shape.begin() + d, 1);
  strides.insert(strides.begin() + d, stride);
  Tensor out = make_view(x, shape, strides, x.offset());
  if (Recorder rec("unsqueeze", {x}, {out}); rec) {
    rec.attr("dim", dim);
    rec.forward([&](const ForwardContext& f) -> TensorList { return {unsqueeze(f.tangent(0), d)}; });
    rec.backward([d](const BackwardContext& ctx) -> TensorList { return {squeeze(ctx.grad(), d)}; });
  }
  return out;
}

}  // namespace tg
