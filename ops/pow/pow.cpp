#include "ops/pow/pow.h"

#include "core/cuda/cuda_only.h"
#include "core/factories.h"
#include "core/tape.h"
#include "ops/common/elementwise.h"
#include "ops/common/op_doc.h"
#include "ops/mul/mul.h"

namespace tg {

namespace {
// d(x^p)/dx = p x^(p-1); x^0 is a constant, whose derivative is 0 everywhere (as the kernels: p
// x^-1 would be NaN at x = 0).
Tensor pow_derivative(const Tensor& x, double p) { return p == 0 ? zeros_like(x) : mul(pow(x, p - 1), p); }
}  // namespace

TG_OP_DOC(pow) {
  return {.summary = "out = x^p for a scalar p",
          .forward_text = "out = x^p",
          .forward_tex = R"(\mathrm{out} = x^{p})",
          .backward = {{"x",
                        "dL/dx = dL/dout * p * x^(p-1)",
                        R"(\dLd{x} = \dLd{\mathrm{out}} \odot p\, x^{p-1})"}}};
}

Tensor pow(const Tensor& x, double p) {
  Tensor out = unary_output(x, "pow");
  if (out.is_cuda())
    TG_CUDA_ONLY(pow_forward_cuda(out, x, p));
  else
    pow_forward_cpu(out, x, p);
  if (Recorder rec("pow", {x}, {out}); rec) {
    rec.save("x", x).attr("p", p);
    rec.forward([p](const ForwardContext& f) -> TensorList {
      return {mul(f.tangent(0), pow_derivative(f.input(0), p))};
    });
    rec.backward(
        [p](const BackwardContext& ctx) -> TensorList { return {mul(ctx.grad(), pow_derivative(ctx.saved("x"), p))}; },
        [p](const BackwardContext& ctx) -> TensorList {
          Tensor dx = empty_like(ctx.grad());
          if (dx.is_cuda())
            TG_CUDA_ONLY(pow_backward_cuda(dx, ctx.grad(), ctx.saved("x"), p));
          else
            pow_backward_cpu(dx, ctx.grad(), ctx.saved("x"), p);
          return {dx};
        });
  }
  return out;
}

}  // namespace tg
