#include "ops/fused/dropout_add/dropout_add.h"

#include <fmt/format.h>

#include "core/copy.h"
#include "core/cuda/cuda_only.h"
#include "core/factories.h"
#include "core/tape.h"
#include "ops/add/add.h"
#include "ops/common/contiguous_input.h"
#include "ops/common/op_doc.h"
#include "ops/dropout/dropout.h"
#include "ops/mul/mul.h"

namespace tg {

void check_dropout_add_args(const Tensor& residual, const Tensor& x, double p, const char* op) {
  check_floating(residual, op, "residual");
  check_dropout_args(x, p, op);
  check_same_dtype(residual, x, op);
  check_same_device(residual, x, op);
  if (residual.shape() != x.shape())
    throw Error(op, fmt::format("residual and x must have one shape (no broadcasting), got residual {} and x {}",
                                shape_str(residual.shape()), shape_str(x.shape())));
}

TG_OP_DOC(dropout_add) {
  return {.summary = "residual + dropout(x) in one pass (a residual connection)",
          .forward_text = "out = residual + (keep ? x / (1 - p) : 0), keep[i] = (u[i] > p) as dropout draws it",
          .forward_tex = R"(\mathrm{out} = r + \frac{m \odot x}{1 - p})",
          .backward = {{"residual", "dL/dresidual = dL/dout", R"(\dLd{r} = \dLd{\mathrm{out}})"},
                       {"x",
                        "dL/dx = keep ? dL/dout / (1 - p) : 0",
                        R"(\dLd{x} = \frac{m \odot \dLd{\mathrm{out}}}{1 - p})"}}};
}

Tensor dropout_add(const Tensor& residual, const Tensor& x, double p, bool training, Generator& gen) {
  check_dropout_add_args(residual, x, p, "dropout_add");
  if (!training || p == 0) return add(residual, x);
  const double scale = p < 1 ? 1 / (1 - p) : 0;
  const DropoutDraw draw = reserve_dropout(gen, static_cast<uint64_t>(x.numel()), p);
  Tensor out = empty(x.shape(), x.dtype(), x.device());
  Tensor keep = empty(x.shape(), kBool, x.device());
  const Tensor xc = contiguous_or_copy(x), rc = contiguous_or_copy(residual);
  if (x.is_cuda())
    TG_CUDA_ONLY(dropout_forward_cuda(out, keep, xc, draw, scale, false, rc));
  else
    dropout_forward_cpu(out, keep, xc, draw, scale, false, rc);

  if (Recorder rec("dropout_add", {residual, x}, {out}); rec) {
    rec.save("keep", keep).attr("p", p);
    rec.forward([&](const ForwardContext& f) -> TensorList {  // tresidual + tx * keep / (1-p)
      Tensor t = f.has_tangent(1) ? mul(f.tangent(1), keep_factor(keep, scale, x.dtype())) : Tensor();
      if (f.has_tangent(0)) t = t.defined() ? add(f.tangent(0), t) : f.tangent(0);
      return {t};
    });
    rec.backward(
        [scale](const BackwardContext& ctx) -> TensorList {
          const Tensor& g = ctx.grad();
          return {g, mul(g, keep_factor(ctx.saved("keep"), scale, ctx.input_dtype(1)))};
        },
        [scale](const BackwardContext& ctx) -> TensorList {
          const Tensor& g = ctx.grad();
          if (!ctx.needs_grad(1)) return {g, {}};
          return {g, masked_scaled(contiguous_or_copy(g), ctx.saved("keep"), scale)};
        });
  }
  return out;
}

}  // namespace tg
