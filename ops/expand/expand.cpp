#include "ops/expand/expand.h"

#include "core/tape.h"
#include "ops/common/op_doc.h"
#include "ops/sum/sum.h"

namespace tg {

TG_OP_DOC(expand) {
  return {.summary = "a broadcast view of x (stride 0 on expanded dims)",
          .forward_text = "out = x broadcast to shape (stride 0 on the expanded dims)",
          .forward_tex = R"(\mathrm{out} = \operatorname{broadcast}(x, \text{shape}))",
          .backward = {{"x",
                        "dL/dx = sum_to(dL/dout, x.shape)",
                        R"(\dLd{x} = \operatorname{sum\_to}(\dLd{\mathrm{out}}, )"
                        R"(\operatorname{shape}(x)))"}}};
}

Tensor expand(const Tensor& x, Shape shape) {
  check_defined(x, "expand", "x");
  const int64_t lead = static_cast<int64_t>(shape.size()) - x.dim();
  if (lead < 0)
    throw Error("expand", fmt::format("cannot expand x {} to fewer dims {}", shape_str(x.shape()), shape_str(shape)));
  for (int64_t d = 0; d < static_cast<int64_t>(shape.size()); ++d) {
    if (shape[d] == -1 && d >= lead) shape[d] = x.size(d - lead);
    bool ok = shape[d] >= 0 && (d < lead || x.size(d - lead) == 1 || x.size(d - lead) == shape[d]);
    if (!ok)
      throw Error("expand", fmt::format("x {} cannot be expanded to {} (dim {})", shape_str(x.shape()),
                                        shape_str(shape), d));
  }
  check_shape(shape, static_cast<int64_t>(element_size(x.dtype())), "expand");
  if (shape == x.shape()) return x;  // x itself, with its gradient and tangent
  Tensor out = make_view(x, shape, broadcast_strides(x.shape(), x.strides(), shape), x.offset());
  if (Recorder rec("expand", {x}, {out}); rec) {
    rec.attr("shape", shape_str(shape));
    rec.forward([&](const ForwardContext& f) -> TensorList { return {expand(f.tangent(0), shape)}; });
    rec.backward([](const BackwardContext& ctx) -> TensorList { return {sum_to(ctx.grad(), ctx.input_shape(0))}; });
  }
  return out;
}

}  // namespace tg
