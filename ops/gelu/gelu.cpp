#include "ops/gelu/gelu.h"

#include "core/cuda/cuda_only.h"
#include "core/factories.h"
#include "core/numerics.h"
#include "core/tape.h"
#include "ops/add/add.h"
#include "ops/common/elementwise.h"
#include "ops/common/op_doc.h"
#include "ops/erf/erf.h"
#include "ops/exp/exp.h"
#include "ops/gelu/gelu_math.h"
#include "ops/mul/mul.h"
#include "ops/sub/sub.h"
#include "ops/tanh/tanh.h"

namespace tg {

namespace {

// gelu'(x) with tapegrad ops, the formulas of gelu.h and gelu_math.h (which the kernels run).
// erf form: Phi(x) + x phi(x), Phi(x) = (1 + erf(x / sqrt(2))) / 2, phi(x) = e^(-x^2/2) / sqrt(2 pi)
Tensor gelu_erf_derivative(const Tensor& x) {
  using namespace gelu_math;
  Tensor cdf = mul(add(erf(mul(x, kInvSqrt2<double>)), 1.0), 0.5);
  Tensor pdf = mul(exp(mul(mul(x, x), -0.5)), kInvSqrt2Pi<double>);
  return add(cdf, mul(x, pdf));
}

// tanh form: 0.5 (1 + t) + 0.5 x (1 - t^2) du/dx, t = tanh(u), u = sqrt(2/pi) (x + 0.044715 x^3),
// du/dx = sqrt(2/pi) (1 + 3 * 0.044715 x^2)
Tensor gelu_tanh_derivative(const Tensor& x) {
  using namespace gelu_math;
  Tensor x2 = mul(x, x);
  Tensor t = tanh(mul(mul(x, add(mul(x2, kCubic<double>), 1.0)), kSqrt2OverPi<double>));
  Tensor du_dx = mul(add(mul(x2, 3 * kCubic<double>), 1.0), kSqrt2OverPi<double>);
  return mul(add(add(t, 1.0), mul(mul(x, sub(1.0, mul(t, t))), du_dx)), 0.5);
}

Tensor gelu_derivative(const Tensor& x, GeluApprox approx) {
  return approx == GeluApprox::tanh ? gelu_tanh_derivative(x) : gelu_erf_derivative(x);
}

}  // namespace

TG_OP_DOC(gelu) {
  return {.summary = "out = x Phi(x), Phi the standard normal CDF",
          .forward_text = "out = x Phi(x) = 0.5 x (1 + erf(x / sqrt(2)))",
          .forward_tex = R"(\mathrm{out} = x\,\Phi(x) = \tfrac{1}{2} x \left(1 + \operatorname{erf}(x / )"
                         R"(\sqrt{2})\right))",
          .backward = {{"x",
                        "dL/dx = dL/dout * (Phi(x) + x phi(x)), phi(x) = e^(-x^2/2) / sqrt(2 pi)",
                        R"(\dLd{x} = \dLd{\mathrm{out}} \odot \left(\Phi(x) + )"
                        R"(x\,\varphi(x)\right),\quad \varphi(x) = \tfrac{e^{-x^2/2}}{\sqrt{2\pi}})"}}};
}

Tensor gelu(const Tensor& x, GeluApprox approx) {
  Tensor out = unary_output(x, "gelu");
  const int64_t version = numerics();
  if (out.is_cuda())
    TG_CUDA_ONLY(gelu_forward_cuda(out, x, approx));
  else
    gelu_forward_cpu(out, x, approx, version);
  if (Recorder rec("gelu", {x}, {out}); rec) {
    rec.save("x", x).attr("approx", approx == GeluApprox::tanh ? "tanh" : "none");
    rec.forward([approx](const ForwardContext& f) -> TensorList {
      return {mul(f.tangent(0), gelu_derivative(f.input(0), approx))};
    });
    rec.backward(
        [approx](const BackwardContext& ctx) -> TensorList {
          return {mul(ctx.grad(), gelu_derivative(ctx.saved("x"), approx))};
        },
        [approx, version](const BackwardContext& ctx) -> TensorList {
          Tensor dx = empty_like(ctx.grad());
          if (dx.is_cuda())
            TG_CUDA_ONLY(gelu_backward_cuda(dx, ctx.grad(), ctx.saved("x"), approx));
          else
            gelu_backward_cpu(dx, ctx.grad(), ctx.saved("x"), approx, version);
          return {dx};
        });
  }
  return out;
}

}  // namespace tg
