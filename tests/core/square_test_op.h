#pragma once
// A tiny op for the core tests only: out = x * x, saving x for backward.
//   x (...) -> out (...), contiguous
// Backward:
//   dx = backward_scale * 2 * x * grad   (backward_scale = 1 is the true rule; 2 is a
//                                          deliberately wrong one that gradcheck must catch)
// It is the only op on the core tests' branch that saves a tensor, which the saved-tensor
// checks (in-place modification, release after backward) need.
#include "core/dispatch.h"
#include "test_util.h"

namespace tg::test {

inline Tensor square_test_op(const Tensor& x, double backward_scale = 1) {
  check_floating(x, "square_test_op", "x");
  Tensor xc = contiguous_copy(x);
  Tensor out = empty_like(xc);
  dispatch_floating(x.dtype(), "square_test_op", [&](auto zero) {
    using T = decltype(zero);
    const T* in = xc.data<T>();
    T* o = out.data<T>();
    for (int64_t i = 0; i < out.numel(); ++i) o[i] = in[i] * in[i];  // =
  });
  if (Recorder rec("square_test_op", {x}, {out}); rec) {
    rec.save("x", x);
    rec.backward([backward_scale](const BackwardContext& ctx) -> TensorList {
      Tensor xs = contiguous_copy(ctx.saved("x")), grad = contiguous_copy(ctx.grad());
      Tensor dx = empty_like(xs);
      dispatch_floating(xs.dtype(), "square_test_op", [&](auto zero) {
        using T = decltype(zero);
        const T *in = xs.data<T>(), *g = grad.data<T>();
        T* d = dx.data<T>();
        for (int64_t i = 0; i < dx.numel(); ++i) d[i] = static_cast<T>(backward_scale * 2 * in[i] * g[i]);  // =
      });
      return {dx};
    });
  }
  return out;
}

}  // namespace tg::test
