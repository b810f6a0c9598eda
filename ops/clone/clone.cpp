#include "ops/clone/clone.h"

#include "core/copy.h"
#include "core/tape.h"
#include "ops/common/op_doc.h"

namespace tg {

TG_OP_DOC(clone) {
  return {.summary = "a contiguous copy of x in its own storage",
          .forward_text = "out = x (a copy in its own storage)",
          .forward_tex = R"(\mathrm{out} = x)",
          .backward = {{"x",
                        "dL/dx = dL/dout",
                        R"(\dLd{x} = \dLd{\mathrm{out}})"}}};
}

Tensor clone(const Tensor& x) {
  check_defined(x, "clone", "x");
  Tensor out = contiguous_copy(x);
  if (Recorder rec("clone", {x}, {out}); rec) {
    rec.forward([](const ForwardContext& f) -> TensorList { return {clone(f.tangent(0))}; });
    rec.backward([](const BackwardContext& ctx) -> TensorList { return {ctx.grad()}; });
  }
  return out;
}

}  // namespace tg
