#include "ops/fused/linear_relu_dropout/linear_relu_dropout.h"

#include <cstdint>

#include "core/cuda/cuda_only.h"
#include "core/factories.h"
#include "core/tape.h"
#include "ops/common/contiguous_input.h"
#include "ops/common/op_doc.h"
#include "ops/common/philox_lanes.h"
#include "ops/common/vec_math.h"
#include "ops/dropout/dropout.h"
#include "ops/fused/linear/linear.h"
#include "ops/matmul/gemm_cpu.h"
#include "ops/mul/mul.h"
#include "ops/relu/relu.h"

namespace tg {

namespace {

// relu_dropout's float32 draw over out (n) in place, by the product's team once y is complete.
struct DrawWork {
  float* out;
  uint8_t* keep;
  int64_t n;
  DropoutDraw draw;
  float scale;
};

void draw_part(const void* context, int, int) {
  const auto& w = *static_cast<const DrawWork*>(context);
  dropout_forward_f32_team(w.out, w.keep, w.out, nullptr, w.n, w.draw, w.scale, true);
}

}  // namespace

TG_OP_DOC(linear_relu_dropout) {
  return {.summary = "dropout(relu(x W^T + b)) in one parallel region each way (a feed-forward's first layer)",
          .forward_text = "out = keep ? relu(y) / (1 - p) : 0, y = x @ weight^T + bias, keep[i] = (u[i] > p) as "
                          "dropout draws it",
          .forward_tex = R"(\mathrm{out} = \frac{m \odot \max(y, 0)}{1 - p},\quad y = x W^\top + b)",
          .backward = {{"x",
                        "dL/dx = dL/dy @ weight, dL/dy = (keep and y > 0) ? dL/dout / (1 - p) : 0",
                        R"(\dLd{x} = \dLd{y}\, W,\quad )"
                        R"(\dLd{y} = \frac{m \odot [y > 0] \odot \dLd{\mathrm{out}}}{1 - p})"},
                       {"weight",
                        "dL/dweight = dL/dy^T @ x (over all rows of x)",
                        R"(\dLd{W} = \dLd{y}^\top x)"},
                       {"bias",
                        "dL/dbias = sum over rows of dL/dy",
                        R"(\dLd{b} = \sum_{\text{rows}} \dLd{y})"}}};
}

Tensor linear_relu_dropout(const Tensor& x, const Tensor& weight, const Tensor& bias, double p, bool training,
                           Generator& gen) {
  check_linear_args(x, weight, bias, "linear_relu_dropout");
  check_dropout_args(x, p, "linear_relu_dropout");
  if (!training || p == 0) return relu(linear(x, weight, bias));
  const Shape shape = linear_output_shape(x, weight);
  const int64_t n = numel(shape);
  const double scale = p < 1 ? 1 / (1 - p) : 0;
  const DropoutDraw draw = reserve_dropout(gen, static_cast<uint64_t>(n), p);
  Tensor out = empty(shape, x.dtype(), x.device());
  const Tensor keep = empty(shape, kBool, x.device());
  if (!x.is_cuda() && x.dtype() == kF32 && !draw.keeps_nothing()) {  // p < 1: the draw in the product's region
    const DrawWork work{out.data<float>(), reinterpret_cast<uint8_t*>(keep.data<bool>()), n, draw,
                        static_cast<float>(scale)};
    const GemmSideWork drawing{draw_part, &work, GemmPhase::after};
    linear_forward_into(out, x, weight, bias, {&drawing, 1});
  } else {
    const Tensor y = empty(shape, x.dtype(), x.device());
    linear_forward_into(y, x, weight, bias);
    if (x.is_cuda())
      TG_CUDA_ONLY(dropout_forward_cuda(out, keep, y, draw, scale, true));
    else
      dropout_forward_cpu(out, keep, y, draw, scale, true);
  }

  if (Recorder rec("linear_relu_dropout", {x, weight, bias}, {out}); rec) {
    save_linear_inputs(rec, x, weight);
    rec.save("keep", keep).attr("p", p);
    rec.forward([&](const ForwardContext& f) -> TensorList {
      return {mul(linear_tangent(f), keep_factor(keep, scale, x.dtype()))};
    });
    rec.backward(
        [scale](const BackwardContext& ctx) {  // linear's rule for gy = keep * grad / (1-p), with ops
          const Tensor factor = keep_factor(ctx.saved("keep"), scale, ctx.input_dtype(0));
          return linear_reference_grads(ctx, mul(ctx.grad(), factor));
        },
        [scale](const BackwardContext& ctx) { return linear_fast_grads_masked(ctx, ctx.saved("keep"), scale); });
  }
  return out;
}

}  // namespace tg
