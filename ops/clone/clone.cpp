#include "ops/clone/clone.h"

#include "core/copy.h"
#include "core/tape.h"

namespace tg {

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
