#include "ops/unsqueeze/unsqueeze.h"

#include "core/tape.h"
#include "ops/common/op_doc.h"
#include "ops/squeeze/squeeze.h"

namespace tg {

TG_OP_DOC(unsqueeze) {
  return {.summary = "a view with a new size-1 dim",
          .forward_text = "out = x with a size-1 dim inserted at dim",
          .forward_tex = R"(\mathrm{out} = \operatorname{unsqueeze}(x, \text{dim}))",
          .backward = {{"x",
                        "dL/dx = squeeze(dL/dout, dim)",
                        R"(\dLd{x} = \operatorname{squeeze}(\dLd{\mathrm{out}}, \text{dim}))"}}};
}

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
