#include "ops/to/to.h"

#include "core/copy.h"
#include "core/tape.h"
#include "ops/common/op_doc.h"

namespace tg {

TG_OP_DOC(to) {
  return {.summary = "x converted to another dtype or moved to another device",
          .forward_text = "out = x in another dtype or on another device",
          .forward_tex = R"(\mathrm{out} = x)",
          .backward = {{"x",
                        "dL/dx = to(dL/dout, x.dtype or x.device)",
                        R"(\dLd{x} = \operatorname{to}(\dLd{\mathrm{out}}, \operatorname{dtype}(x)))"}}};
}

Tensor to(const Tensor& x, DType dtype) {
  check_defined(x, "to", "x");
  if (x.dtype() == dtype) return x;  // x itself, with its gradient and tangent
  Tensor out = to_dtype_copy(x, dtype);
  if (Recorder rec("to", {x}, {out}); rec && is_floating(dtype)) {
    rec.attr("dtype", dtype_name(dtype));
    rec.forward([dtype](const ForwardContext& f) -> TensorList { return {to(f.tangent(0), dtype)}; });
    rec.backward([](const BackwardContext& ctx) -> TensorList { return {to(ctx.grad(), ctx.input_dtype(0))}; });
  }
  return out;
}

Tensor to(const Tensor& x, Device device) {
  check_defined(x, "to", "x");
  if (x.device() == device) return x;  // x itself, with its gradient and tangent
  if (device.is_cuda() && (device.index < 0 || device.index >= cuda_device_count()))
    throw Error("to", fmt::format("cannot move x {} to {}: {}", x.describe(), device.str(),
                                  cuda_built() ? fmt::format("{} GPU(s) present", cuda_device_count())
                                               : std::string("tapegrad was built without CUDA")));
  Tensor out = to_device_copy(x, device);
  if (Recorder rec("to", {x}, {out}); rec) {
    rec.attr("device", device.str());
    rec.forward([device](const ForwardContext& f) -> TensorList { return {to(f.tangent(0), device)}; });
    rec.backward([](const BackwardContext& ctx) -> TensorList {
      return {to(ctx.grad(), ctx.entry().inputs[0].record.device)};
    });
  }
  return out;
}

}  // namespace tg
