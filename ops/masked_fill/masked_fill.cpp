#include "ops/masked_fill/masked_fill.h"

#include "core/cuda/cuda_only.h"
#include "core/factories.h"
#include "core/tape.h"
#include "ops/common/op_doc.h"

namespace tg {

namespace {

void check_mask(const Tensor& x, const Tensor& mask) {
  check_defined(mask, "masked_fill", "mask");
  if (mask.dtype() != kBool)
    throw Error("masked_fill", fmt::format("mask must be bool, got {} {}; a float 0/1 mask is a classic bug: "
                                           "convert it explicitly", dtype_name(mask.dtype()),
                                           shape_str(mask.shape())));
  check_same_device(x, mask, "masked_fill");
  // Right-aligned numpy broadcasting, one way only: mask -> x.shape.
  const int64_t lead = x.dim() - mask.dim();
  bool fits = lead >= 0;
  for (int64_t d = 0; fits && d < mask.dim(); ++d) fits = mask.size(d) == 1 || mask.size(d) == x.size(lead + d);
  if (!fits)
    throw Error("masked_fill", fmt::format("mask {} does not broadcast to x {} (the output keeps x's shape)",
                                           shape_str(mask.shape()), shape_str(x.shape())));
}

}  // namespace

TG_OP_DOC(masked_fill) {
  return {.summary = "x with a value written wherever the mask is true",
          .forward_text = "out = mask ? value : x (mask broadcast to x; true = filled)",
          .forward_tex = R"(\mathrm{out} = \begin{cases} v & \text{where mask} \\ x & \text{elsewhere} )"
                         R"(\end{cases})",
          .backward = {{"x",
                        "dL/dx = mask ? 0 : dL/dout",
                        R"(\dLd{x} = [\lnot\,\mathrm{mask}] \odot \dLd{\mathrm{out}})"}}};
}

Tensor masked_fill(const Tensor& x, const Tensor& mask, double value) {
  check_floating(x, "masked_fill", "x");
  check_mask(x, mask);
  Tensor out = empty_like(x);
  if (x.is_cuda())
    TG_CUDA_ONLY(masked_fill_forward_cuda(out, x, mask, value));
  else
    masked_fill_forward_cpu(out, x, mask, value);
  if (Recorder rec("masked_fill", {x, mask}, {out}); rec) {
    rec.attr("value", value).save("mask", mask);
    rec.forward([&](const ForwardContext& f) -> TensorList { return {masked_fill(f.tangent(0), mask, 0.0)}; });
    rec.backward([](const BackwardContext& ctx) -> TensorList {
      return {masked_fill(ctx.grad(), ctx.saved("mask"), 0.0), Tensor()};
    });
  }
  return out;
}

}  // namespace tg
