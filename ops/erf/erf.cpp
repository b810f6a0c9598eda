#include "ops/erf/erf.h"

#include <numbers>

#include "core/cuda/cuda_only.h"
#include "core/tape.h"
#include "ops/common/elementwise.h"
#include "ops/common/op_doc.h"
#include "ops/exp/exp.h"
#include "ops/mul/mul.h"

namespace tg {

namespace {
// erf'(x) = 2/sqrt(pi) e^(-x^2)
Tensor erf_derivative(const Tensor& x) { return mul(exp(mul(mul(x, x), -1.0)), 2 * std::numbers::inv_sqrtpi); }
}  // namespace

TG_OP_DOC(erf) {
  return {.summary = "out = erf(x), the Gauss error function",
          .forward_text = "out = erf(x) = 2/sqrt(pi) * integral_0^x e^(-t^2) dt",
          .forward_tex = R"(\mathrm{out} = \operatorname{erf}(x) = \tfrac{2}{\sqrt{\pi}} )"
                         R"(\int_0^x e^{-t^2}\,dt)",
          .backward = {{"x",
                        "dL/dx = dL/dout * 2/sqrt(pi) e^(-x^2)",
                        R"(\dLd{x} = \dLd{\mathrm{out}} \odot \tfrac{2}{\sqrt{\pi}} e^{-x^2})"}}};
}

Tensor erf(const Tensor& x) {
  Tensor out = unary_forward(x, "erf", erf_forward_cpu, TG_CUDA_KERNEL(erf_forward_cuda));
  if (Recorder rec("erf", {x}, {out}); rec) {
    rec.save("x", x);
    rec.forward([](const ForwardContext& f) -> TensorList { return {mul(f.tangent(0), erf_derivative(f.input(0)))}; });
    rec.backward([](const BackwardContext& ctx) -> TensorList {
      return {mul(ctx.grad(), erf_derivative(ctx.saved("x")))};
    });
  }
  return out;
}

}  // namespace tg
