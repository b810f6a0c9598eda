#include "ops/transpose/transpose.h"

#include <utility>

#include "core/tape.h"
#include "ops/common/op_doc.h"

namespace tg {

TG_OP_DOC(transpose) {
  return {.summary = "a view with two dims swapped",
          .forward_text = "out = x with dims dim0 and dim1 swapped",
          .forward_tex = R"(\mathrm{out} = x^{\top_{d_0 d_1}})",
          .backward = {{"x",
                        "dL/dx = transpose(dL/dout, dim0, dim1)",
                        R"(\dLd{x} = \dLd{\mathrm{out}}^{\top_{d_0 d_1}})"}}};
}

Tensor transpose(const Tensor& x, int64_t dim0, int64_t dim1) {
  check_defined(x, "transpose", "x");
  const int64_t d0 = wrap_dim(dim0, x.dim(), "transpose", x.shape());
  const int64_t d1 = wrap_dim(dim1, x.dim(), "transpose", x.shape());
  Shape shape = x.shape(), strides = x.strides();
  if (x.dim() > 0) {  // a 0-d tensor has no dims to swap (dims -1 and 0 both name "none")
    std::swap(shape[d0], shape[d1]);
    std::swap(strides[d0], strides[d1]);
  }
  Tensor out = make_view(x, shape, strides, x.offset());
  if (Recorder rec("transpose", {x}, {out}); rec) {
    rec.attr("dim0", dim0).attr("dim1", dim1);
    rec.forward([&](const ForwardContext& f) -> TensorList { return {transpose(f.tangent(0), d0, d1)}; });
    rec.backward([d0, d1](const BackwardContext& ctx) -> TensorList { return {transpose(ctx.grad(), d0, d1)}; });
  }
  return out;
}

}  // namespace tg
