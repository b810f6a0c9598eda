#include "ops/contiguous/contiguous.h"

#include "core/copy.h"
#include "core/tape.h"
#include "ops/common/op_doc.h"

namespace tg {

TG_OP_DOC(contiguous) {
  return {.summary = "x itself when contiguous, else a row-major copy",
          .forward_text = "out = x (row-major)",
          .forward_tex = R"(\mathrm{out} = x)",
          .backward = {{"x",
                        "dL/dx = dL/dout",
                        R"(\dLd{x} = \dLd{\mathrm{out}})"}}};
}

Tensor contiguous(const Tensor& x) {
  check_defined(x, "contiguous", "x");
  if (x.is_contiguous()) return x;  // x itself, with its gradient and tangent
  Tensor out = contiguous_copy(x);
  if (Recorder rec("contiguous", {x}, {out}); rec) {
    rec.forward([](const ForwardContext& f) -> TensorList { return {contiguous(f.tangent(0))}; });
    rec.backward([](const BackwardContext& ctx) -> TensorList { return {ctx.grad()}; });
  }
  return out;
}

}  // namespace tg
