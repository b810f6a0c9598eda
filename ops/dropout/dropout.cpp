#include "ops/dropout/dropout.h"

#include <fmt/format.h>

#include "core/copy.h"
#include "core/cuda/cuda_only.h"
#include "core/factories.h"
#include "core/tape.h"

namespace tg {

void check_dropout_args(const Tensor& x, double p, const char* op) {
  check_floating(x, op, "x");
  if (!(p >= 0 && p <= 1))  // also rejects NaN
    throw Error(op, fmt::format("p must be in [0, 1], got {} (x {})", p, x.describe()));
}

Tensor dropout(const Tensor& x, double p, bool training, Generator& gen) {
  check_dropout_args(x, p, "dropout");
  if (!training || p == 0) return x;
  return dropout_drawn(x, p, gen, false);
}

Tensor dropout_drawn(const Tensor& x, double p, Generator& gen, bool relu) {
  const char* op = relu ? "relu_dropout" : "dropout";
  const double scale = p < 1 ? 1 / (1 - p) : 0;
  const uint64_t offset = gen.reserve(static_cast<uint64_t>(x.numel()), 4);
  Tensor out = empty(x.shape(), x.dtype(), x.device());
  Tensor keep = empty(x.shape(), kBool, x.device());
  const Tensor xc = x.is_contiguous() ? x : contiguous_copy(x);
  if (x.is_cuda())
    TG_CUDA_ONLY(dropout_forward_cuda(out, keep, xc, gen.seed(), offset, p, scale, relu));
  else
    dropout_forward_cpu(out, keep, xc, gen.seed(), offset, p, scale, relu);

  if (Recorder rec(op, {x}, {out}); rec) {
    rec.save("keep", keep).attr("p", p);
    rec.backward([scale](const BackwardContext& ctx) -> TensorList {
      const Tensor& g = ctx.grad();
      Tensor dx = empty(ctx.input_shape(0), ctx.input_dtype(0), g.device());
      const Tensor gc = g.is_contiguous() ? g : contiguous_copy(g);
      if (g.is_cuda())
        TG_CUDA_ONLY(dropout_backward_cuda(dx, ctx.saved("keep"), gc, scale));
      else
        dropout_backward_cpu(dx, ctx.saved("keep"), gc, scale);
      return {dx};
    });
  }
  return out;
}

}  // namespace tg
