#include "ops/dropout/dropout.h"

#include <cmath>

#include <fmt/format.h>

#include "core/copy.h"
#include "core/cuda/cuda_only.h"
#include "core/factories.h"
#include "core/numerics.h"
#include "core/tape.h"
#include "ops/common/op_doc.h"
#include "ops/mul/mul.h"

namespace tg {

// keep ? t * scale : 0 for contiguous t and keep (bool), into a new contiguous tensor.
Tensor masked_scaled(const Tensor& t, const Tensor& keep, double scale) {
  Tensor out = empty(t.shape(), t.dtype(), t.device());
  if (t.is_cuda())
    TG_CUDA_ONLY(dropout_backward_cuda(out, keep, t, scale));
  else
    dropout_backward_cpu(out, keep, t, scale);
  return out;
}

// The factor the kept elements were scaled by, keep ? scale : 0 (keep's shape, `dtype`): a
// constant, since the draw (and relu's step in relu_dropout) has derivative 0 wherever it has one.
Tensor keep_factor(const Tensor& keep, double scale, DType dtype) {
  return masked_scaled(ones(keep.shape(), dtype, keep.device()), keep, scale);
}

namespace {

// The tape entry of a dropout that scaled its kept elements by `scale`: dx = keep ? grad * scale : 0.
void record_dropout(const char* op, const Tensor& x, const Tensor& out, const Tensor& keep, double p, double scale) {
  if (Recorder rec(op, {x}, {out}); rec) {
    rec.save("keep", keep).attr("p", p);
    rec.forward([&](const ForwardContext& f) -> TensorList {
      return {mul(f.tangent(0), keep_factor(keep, scale, x.dtype()))};
    });
    rec.backward(
        [scale](const BackwardContext& ctx) -> TensorList {
          return {mul(ctx.grad(), keep_factor(ctx.saved("keep"), scale, ctx.input_dtype(0)))};
        },
        [scale](const BackwardContext& ctx) -> TensorList {
          const Tensor& g = ctx.grad();
          return {masked_scaled(g.is_contiguous() ? g : contiguous_copy(g), ctx.saved("keep"), scale)};
        });
  }
}

}  // namespace

void check_dropout_args(const Tensor& x, double p, const char* op) {
  check_floating(x, op, "x");
  if (!(p >= 0 && p <= 1))  // also rejects NaN
    throw Error(op, fmt::format("p must be in [0, 1], got {} (x {})", p, x.describe()));
}

TG_OP_DOC(dropout) {
  return {.summary = "zeroes each element with probability p, scales the rest by 1/(1-p)",
          .forward_text = "out = keep ? x / (1 - p) : 0, keep[i] = (u[i] > p), u[i] uniform in [0, 1)",
          .forward_tex = R"(\mathrm{out} = \frac{m \odot x}{1 - p},\quad m_i = [u_i > p])",
          .backward = {{"x",
                        "dL/dx = keep ? dL/dout / (1 - p) : 0",
                        R"(\dLd{x} = \frac{m \odot \dLd{\mathrm{out}}}{1 - p})"}}};
}

Tensor dropout(const Tensor& x, double p, bool training, Generator& gen) {
  check_dropout_args(x, p, "dropout");
  if (!training || p == 0) return x;
  return dropout_drawn(x, p, gen, false);
}

DropoutDraw reserve_dropout(Generator& gen, uint64_t n, double p) {
  DropoutDraw draw;
  if (numerics() >= 3 && p >= 0x1p-8 && p <= 1 - 0x1p-8) draw.bits = 16;
  draw.threshold = static_cast<uint64_t>(std::floor(std::ldexp(p, static_cast<int>(draw.bits))));  // exact
  draw.seed = gen.seed();
  draw.offset = gen.reserve(n, draw.per_counter());
  return draw;
}

Tensor dropout_drawn(const Tensor& x, double p, Generator& gen, bool relu) {
  const double scale = p < 1 ? 1 / (1 - p) : 0;
  const DropoutDraw draw = reserve_dropout(gen, static_cast<uint64_t>(x.numel()), p);
  Tensor out = empty(x.shape(), x.dtype(), x.device());
  Tensor keep = empty(x.shape(), kBool, x.device());
  const Tensor xc = x.is_contiguous() ? x : contiguous_copy(x);
  if (x.is_cuda())
    TG_CUDA_ONLY(dropout_forward_cuda(out, keep, xc, draw, scale, relu));
  else
    dropout_forward_cpu(out, keep, xc, draw, scale, relu);
  record_dropout(relu ? "relu_dropout" : "dropout", x, out, keep, p, scale);
  return out;
}

Tensor dropout(const Tensor& x, const Tensor& keep, double p) {
  check_dropout_args(x, p, "dropout");
  check_defined(keep, "dropout", "keep");
  if (keep.dtype() != kBool || keep.shape() != x.shape() || keep.device() != x.device())
    throw Error("dropout", fmt::format("the keep mask must be bool, of x's shape and on x's device, but keep is "
                                       "{} on {} and x is {} on {}", keep.describe(), keep.device().str(),
                                       x.describe(), x.device().str()));
  if (p == 1)
    throw Error("dropout", fmt::format("with a given keep mask p must be in [0, 1) (kept elements are scaled "
                                       "by 1/(1-p)), got 1 (x {})", x.describe()));
  const double scale = 1 / (1 - p);
  const Tensor kc = keep.is_contiguous() ? keep : contiguous_copy(keep);
  Tensor out = masked_scaled(x.is_contiguous() ? x : contiguous_copy(x), kc, scale);
  record_dropout("dropout", x, out, kc, p, scale);
  return out;
}

}  // namespace tg
