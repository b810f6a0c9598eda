#include "ops/squeeze/squeeze.h"

#include "core/tape.h"
#include "ops/common/op_doc.h"
#include "ops/reshape/reshape.h"

namespace tg {

namespace {

// The view of x without the size-1 dims that `drop(d)` selects; one tape entry.
template <class Drop>
Tensor squeeze_dims(const Tensor& x, Drop drop, const std::string& dims_attr) {
  Shape shape, strides;
  for (int64_t d = 0; d < x.dim(); ++d)
    if (x.size(d) != 1 || !drop(d)) shape.push_back(x.size(d)), strides.push_back(x.strides()[d]);
  Tensor out = make_view(x, shape, strides, x.offset());
  if (Recorder rec("squeeze", {x}, {out}); rec) {
    rec.attr("dim", dims_attr);
    rec.forward([&](const ForwardContext& f) -> TensorList { return {squeeze_dims(f.tangent(0), drop, dims_attr)}; });
    rec.backward([](const BackwardContext& ctx) -> TensorList { return {reshape(ctx.grad(), ctx.input_shape(0))}; });
  }
  return out;
}

}  // namespace

TG_OP_DOC(squeeze) {
  return {.summary = "a view without size-1 dims",
          .forward_text = "out = x without its size-1 dims (or without dim, if its size is 1)",
          .forward_tex = R"(\mathrm{out} = \operatorname{squeeze}(x))",
          .backward = {{"x",
                        "dL/dx = reshape(dL/dout, x.shape)",
                        R"(\dLd{x} = \operatorname{reshape}(\dLd{\mathrm{out}}, )"
                        R"(\operatorname{shape}(x)))"}}};
}

Tensor squeeze(const Tensor& x) {
  check_defined(x, "squeeze", "x");
  return squeeze_dims(x, [](int64_t) { return true; }, "all");
}

Tensor squeeze(const Tensor& x, int64_t dim) {
  check_defined(x, "squeeze", "x");
  const int64_t k = wrap_dim(dim, x.dim(), "squeeze", x.shape());
  return squeeze_dims(x, [k](int64_t d) { return d == k; }, std::to_string(dim));
}

}  // namespace tg
