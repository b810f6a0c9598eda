#include "ops/fused/linear_dropout_add/linear_dropout_add.h"

#include <cstdint>

#include "core/copy.h"
#include "core/cuda/cuda_only.h"
#include "core/factories.h"
#include "core/tape.h"
#include "ops/add/add.h"
#include "ops/common/contiguous_input.h"
#include "ops/common/op_doc.h"
#include "ops/common/philox_lanes.h"
#include "ops/dropout/dropout.h"
#include "ops/fused/linear/linear.h"
#include "ops/matmul/gemm_cpu.h"
#include "ops/mul/mul.h"

namespace tg {

namespace {

constexpr const char* kLinearAddOp = "linear_dropout_add";

// The float32 epilogue over out (n), by the product's team once y is in it: dropout_add's draw and
// sum in place (an `omp for`), or, without a draw, each thread's share of out = residual + y.
struct ResidualWork {
  float* out;
  uint8_t* keep;  // null: no draw
  const float* residual;
  int64_t n;
  DropoutDraw draw;
  float scale;
};

void add_residual_part(const void* context, int thread, int threads) {
  const auto& w = *static_cast<const ResidualWork*>(context);
  if (w.keep) {
    dropout_forward_f32_team(w.out, w.keep, w.out, w.residual, w.n, w.draw, w.scale, false);
    return;
  }
  const int64_t first = w.n * thread / threads, last = w.n * (thread + 1) / threads;
#pragma omp simd
  for (int64_t i = first; i < last; ++i) w.out[i] = w.residual[i] + w.out[i];
}

}  // namespace

TG_OP_DOC(linear_dropout_add) {
  return {.summary = "residual + dropout(x W^T + b) in one parallel region forward (a pre-LN block's last layer "
                     "and residual connection)",
          .forward_text = "out = residual + (keep ? y / (1 - p) : 0), y = x @ weight^T + bias, keep[i] = (u[i] > p) "
                          "as dropout draws it (out = residual + y without dropout)",
          .forward_tex = R"(\mathrm{out} = r + \frac{m \odot y}{1 - p},\quad y = x W^\top + b)",
          .backward = {{"x",
                        "dL/dx = dL/dy @ weight, dL/dy = keep ? dL/dout / (1 - p) : 0",
                        R"(\dLd{x} = \dLd{y}\, W,\quad \dLd{y} = \frac{m \odot \dLd{\mathrm{out}}}{1 - p})"},
                       {"weight", "dL/dweight = dL/dy^T @ x (over all rows of x)", R"(\dLd{W} = \dLd{y}^\top x)"},
                       {"bias", "dL/dbias = sum over rows of dL/dy", R"(\dLd{b} = \sum_{\text{rows}} \dLd{y})"},
                       {"residual", "dL/dresidual = dL/dout", R"(\dLd{r} = \dLd{\mathrm{out}})"}}};
}

Tensor linear_dropout_add(const Tensor& x, const Tensor& weight, const Tensor& bias, const Tensor& residual, double p,
                          bool training, Generator& gen) {
  check_linear_args(x, weight, bias, kLinearAddOp);
  check_dropout_args(x, p, kLinearAddOp);
  check_linear_residual(residual, x, weight, kLinearAddOp);
  const Shape shape = linear_output_shape(x, weight);
  const bool draws = training && p > 0;
  const int64_t n = numel(shape);
  const double scale = p < 1 ? 1 / (1 - p) : 0;
  const DropoutDraw draw = draws ? reserve_dropout(gen, static_cast<uint64_t>(n), p) : DropoutDraw{};
  const Tensor rc = contiguous_or_copy(residual);
  Tensor out = empty(shape, x.dtype(), x.device());
  const Tensor keep = draws ? empty(shape, kBool, x.device()) : Tensor();
  if (!x.is_cuda() && x.dtype() == kF32 && !draw.keeps_nothing()) {  // the epilogue in the product's region
    const ResidualWork work{out.data<float>(), draws ? reinterpret_cast<uint8_t*>(keep.data<bool>()) : nullptr,
                            rc.data<float>(), n, draw, static_cast<float>(scale)};
    const GemmSideWork epilogue{add_residual_part, &work, GemmPhase::after};
    linear_forward_into(out, x, weight, bias, {&epilogue, 1});
  } else if (!draws) {
    linear_forward_into(out, x, weight, bias);
    add_into_(out, rc);
  } else {
    const Tensor y = empty(shape, x.dtype(), x.device());
    linear_forward_into(y, x, weight, bias);
    if (x.is_cuda())
      TG_CUDA_ONLY(dropout_forward_cuda(out, keep, y, draw, scale, false, rc));
    else
      dropout_forward_cpu(out, keep, y, draw, scale, false, rc);
  }

  if (Recorder rec(kLinearAddOp, {x, weight, bias, residual}, {out}); rec) {
    save_linear_inputs(rec, x, weight);
    if (draws) rec.save("keep", keep);
    rec.attr("p", draws ? p : 0.0);
    rec.forward([&](const ForwardContext& f) -> TensorList {  // tresidual + linear's tangent * keep / (1-p)
      Tensor t = linear_tangent(f);
      if (t.defined() && draws) t = mul(t, keep_factor(keep, scale, x.dtype()));
      if (!f.has_tangent(3)) return {t};
      return {t.defined() ? add(f.tangent(3), t) : f.tangent(3)};
    });
    rec.backward(
        [scale, draws](const BackwardContext& ctx) {  // linear's rule for gy, with ops
          const Tensor& g = ctx.grad();
          const Tensor gy = draws ? mul(g, keep_factor(ctx.saved("keep"), scale, ctx.input_dtype(0))) : g;
          TensorList grads = linear_reference_grads(ctx, gy);
          grads.push_back(ctx.needs_grad(3) ? g : Tensor());
          return grads;
        },
        [scale, draws](const BackwardContext& ctx) {
          TensorList grads = draws ? linear_fast_grads_masked(ctx, ctx.saved("keep"), scale)
                                   : linear_fast_grads(ctx, ctx.grad());
          grads.push_back(ctx.needs_grad(3) ? ctx.grad() : Tensor());
          return grads;
        });
  }
  return out;
}

}  // namespace tg
