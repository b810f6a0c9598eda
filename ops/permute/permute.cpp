#include "ops/permute/permute.h"

#include "core/tape.h"
#include "ops/common/op_doc.h"

namespace tg {

TG_OP_DOC(permute) {
  return {.summary = "a view with the dims reordered",
          .forward_text = "out = permute(x, dims): out dim i is x dim dims[i]",
          .forward_tex = R"(\mathrm{out} = \operatorname{permute}(x, \pi))",
          .backward = {{"x",
                        "dL/dx = permute(dL/dout, inverse), inverse[dims[i]] = i",
                        R"(\dLd{x} = \operatorname{permute}(\dLd{\mathrm{out}}, \pi^{-1}))"}}};
}

Tensor permute(const Tensor& x, const std::vector<int64_t>& dims) {
  check_defined(x, "permute", "x");
  auto not_a_permutation = [&] {
    return Error("permute", fmt::format("dims [{}] is not a permutation of 0..{} for x {}", fmt::join(dims, ","),
                                        x.dim() - 1, shape_str(x.shape())));
  };
  if (static_cast<int64_t>(dims.size()) != x.dim()) throw not_a_permutation();
  Shape shape(dims.size()), strides(dims.size());
  std::vector<int64_t> inverse(dims.size(), -1);
  for (size_t i = 0; i < dims.size(); ++i) {
    const int64_t d = wrap_dim(dims[i], x.dim(), "permute", x.shape());
    if (inverse[d] >= 0) throw not_a_permutation();
    inverse[d] = static_cast<int64_t>(i);
    shape[i] = x.size(d);
    strides[i] = x.strides()[d];
  }
  Tensor out = make_view(x, shape, strides, x.offset());
  if (Recorder rec("permute", {x}, {out}); rec) {
    rec.attr("dims", fmt::format("[{}]", fmt::join(dims, ",")));
    rec.forward([&](const ForwardContext& f) -> TensorList { return {permute(f.tangent(0), dims)}; });
    rec.backward([inverse](const BackwardContext& ctx) -> TensorList { return {permute(ctx.grad(), inverse)}; });
  }
  return out;
}

}  // namespace tg
