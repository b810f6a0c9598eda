#include "ops/fused/linear_dropout_add_layer_norm/linear_dropout_add_layer_norm.h"

#include <cstdint>

#include "core/cuda/cuda_only.h"
#include "core/factories.h"
#include "core/tape.h"
#include "ops/add/add.h"
#include "ops/common/contiguous_input.h"
#include "ops/common/op_doc.h"
#include "ops/common/philox_lanes.h"
#include "ops/dropout/dropout.h"
#include "ops/fused/dropout_add_layer_norm/dropout_add_layer_norm.h"
#include "ops/fused/linear/linear.h"
#include "ops/layer_norm/layer_norm.h"
#include "ops/matmul/gemm_cpu.h"
#include "ops/mul/mul.h"

namespace tg {

namespace {

constexpr const char* kLinearNormOp = "linear_dropout_add_layer_norm";

// dropout_add_layer_norm's float32 forward over y (N,C), by the product's team once y is complete:
// the draw and the sum (an `omp for`, whose barrier ends it), then each thread's share of the rows.
struct NormWork {
  float *sum, *out, *mean, *rstd;
  uint8_t* keep;
  const float *y, *residual, *w, *b;
  int64_t N, C;
  DropoutDraw draw;
  float scale, eps;
};

void draw_and_normalize(const void* context, int thread, int threads) {
  const auto& n = *static_cast<const NormWork*>(context);
  dropout_forward_f32_team(n.sum, n.keep, n.y, n.residual, n.N * n.C, n.draw, n.scale, false);
  layer_norm_forward_part_f32(n.out, n.mean, n.rstd, n.sum, n.w, n.b, n.N, n.C, n.eps, thread, threads);
}

void norm_backward_part(const void* context, int thread, int threads) {
  static_cast<const LayerNormBackwardTeam*>(context)->run(thread, threads);
}

// The fast rule's gradients {dx, dweight, dbias, dresidual, dnorm_weight, dnorm_bias} (each where
// wanted): dropout_add_layer_norm's for grad, then linear's for gy. On the CPU in float32 in one
// region: layer_norm's backward rows as the products' work before them, writing dsum and gy.
TensorList norm_then_linear_backward(const BackwardContext& ctx, double scale, int64_t N, int64_t C,
                                     bool has_norm_weight) {
  const Tensor norm_weight = has_norm_weight ? contiguous_or_copy(ctx.saved("norm_weight")) : Tensor();
  const DropoutAddNormSaved saved{contiguous_or_copy(ctx.saved("residual")), ctx.saved("y"), ctx.saved("keep"),
                                  ctx.saved("mean"), ctx.saved("rstd"), norm_weight, scale, N, C};
  const Tensor g = contiguous_or_copy(ctx.grad());
  const bool linear_wanted = ctx.needs_grad(0) || ctx.needs_grad(1) || ctx.needs_grad(2);
  auto grad_for = [&](int input, bool wanted) {
    return wanted ? empty(ctx.input_shape(input), ctx.input_dtype(input), g.device()) : Tensor();
  };
  const Tensor dsum = grad_for(3, linear_wanted || ctx.needs_grad(3));
  const Tensor dnorm_weight = grad_for(4, ctx.needs_grad(4)), dnorm_bias = grad_for(5, ctx.needs_grad(5));
  const Tensor &mean = saved.mean, &rstd = saved.rstd, &w = saved.weight;
  TensorList grads{{}, {}, {}};
  if (g.is_cuda() || g.dtype() != kF32) {
    const Tensor gy = dropout_add_norm_kernels(saved, g, dsum, dnorm_weight, dnorm_bias, linear_wanted);
    if (linear_wanted) grads = linear_fast_grads(ctx, gy);
  } else if (!linear_wanted) {
    layer_norm_backward_cpu(dsum, dnorm_weight, dnorm_bias, mean, rstd, g, Tensor(), w, saved.N, saved.C, false,
                            dropout_add_rows(saved, Tensor()));
  } else {
    const Tensor gy = empty(saved.x.shape(), kF32);
    const LayerNormBackwardTeam norm(dsum, dnorm_weight, dnorm_bias, mean, rstd, g, Tensor(), w, saved.N, saved.C,
                                     false, dropout_add_rows(saved, gy));
    const GemmSideWork make_gy{norm_backward_part, &norm, GemmPhase::before};
    grads = linear_fast_grads(ctx, gy, &make_gy);
    norm.finish();
  }
  grads.insert(grads.end(), {ctx.needs_grad(3) ? dsum : Tensor(), dnorm_weight, dnorm_bias});
  return grads;
}

}  // namespace

TG_OP_DOC(linear_dropout_add_layer_norm) {
  return {.summary = "layer_norm(residual + dropout(x W^T + b)) in one parallel region each way (a post-LN block's "
                     "last layer, residual connection and norm)",
          .forward_text = "out = layer_norm(sum), sum = residual + (keep ? y / (1 - p) : 0), y = x @ weight^T + "
                          "bias, keep[i] = (u[i] > p) as dropout draws it",
          .forward_tex = R"(\mathrm{out} = \hat{s} \odot \gamma + \beta,\quad s = r + \frac{m \odot y}{1 - p},)"
                         R"(\quad y = x W^\top + b)",
          .backward = {{"x",
                        "dL/dx = dL/dy @ weight, dL/dy = keep ? dL/dsum / (1 - p) : 0, dL/dsum layer_norm's dL/dx",
                        R"(\dLd{x} = \dLd{y}\, W,\quad \dLd{y} = \frac{m \odot \dLd{s}}{1 - p})"},
                       {"weight", "dL/dweight = dL/dy^T @ x (over all rows of x)", R"(\dLd{W} = \dLd{y}^\top x)"},
                       {"bias", "dL/dbias = sum over rows of dL/dy", R"(\dLd{b} = \sum_{\text{rows}} \dLd{y})"},
                       {"residual", "dL/dresidual = dL/dsum", R"(\dLd{r} = \dLd{s})"},
                       {"norm_weight",
                        "dL/dnorm_weight = sum over rows of dL/dout * norm(sum)",
                        R"(\dLd{\gamma} = \sum_{\text{rows}} \dLd{\mathrm{out}} \odot \hat{s})"},
                       {"norm_bias",
                        "dL/dnorm_bias = sum over rows of dL/dout",
                        R"(\dLd{\beta} = \sum_{\text{rows}} \dLd{\mathrm{out}})"}}};
}

Tensor linear_dropout_add_layer_norm(const Tensor& x, const Tensor& weight, const Tensor& bias, const Tensor& residual,
                                     double p, bool training, const Shape& normalized_shape,
                                     const Tensor& norm_weight, const Tensor& norm_bias, double eps, Generator& gen) {
  check_linear_args(x, weight, bias, kLinearNormOp);
  check_dropout_args(x, p, kLinearNormOp);
  check_linear_residual(residual, x, weight, kLinearNormOp);
  const Shape shape = linear_output_shape(x, weight);
  check_layer_norm_args(residual, normalized_shape, norm_weight, norm_bias, eps, kLinearNormOp,
                        {"residual", "norm_weight", "norm_bias"});
  if (!training || p == 0)
    return dropout_add_layer_norm(residual, linear(x, weight, bias), p, training, normalized_shape, norm_weight,
                                  norm_bias, eps, gen);
  const auto k = static_cast<int64_t>(normalized_shape.size());
  const Shape rows_shape(shape.begin(), shape.end() - k);
  const int64_t n = numel(shape), N = numel(rows_shape), C = numel(normalized_shape);
  const double scale = p < 1 ? 1 / (1 - p) : 0;
  const DropoutDraw draw = reserve_dropout(gen, static_cast<uint64_t>(n), p);
  const Tensor rc = contiguous_or_copy(residual), wc = contiguous_or_copy(norm_weight);
  const Tensor bc = contiguous_or_copy(norm_bias);
  const Tensor y = empty(shape, x.dtype(), x.device()), sum = empty(shape, x.dtype(), x.device());
  const Tensor keep = empty(shape, kBool, x.device());
  Tensor out = empty(shape, x.dtype(), x.device());
  const Tensor mean = empty(rows_shape, x.dtype(), x.device()), rstd = empty(rows_shape, x.dtype(), x.device());
  if (x.is_cuda()) {
    linear_forward_into(y, x, weight, bias);
    TG_CUDA_ONLY(dropout_forward_cuda(sum, keep, y, draw, scale, false, rc));
    TG_CUDA_ONLY(layer_norm_forward_cuda(out, mean, rstd, sum, wc, bc, N, C, eps));
  } else if (x.dtype() == kF32 && !draw.keeps_nothing()) {  // p < 1: the norm in the product's region
    const NormWork work{sum.data<float>(), out.data<float>(), mean.data<float>(), rstd.data<float>(),
                        reinterpret_cast<uint8_t*>(keep.data<bool>()), y.data<float>(), rc.data<float>(),
                        wc.defined() ? wc.data<float>() : nullptr, bc.defined() ? bc.data<float>() : nullptr, N, C,
                        draw, static_cast<float>(scale),
                        static_cast<float>(eps)};
    const GemmSideWork norm{draw_and_normalize, &work, GemmPhase::after};
    linear_forward_into(y, x, weight, bias, {&norm, 1});
  } else {
    linear_forward_into(y, x, weight, bias);
    dropout_forward_cpu(sum, keep, y, draw, scale, false, rc);
    layer_norm_forward_cpu(out, mean, rstd, sum, wc, bc, N, C, eps);
  }

  if (Recorder rec(kLinearNormOp, {x, weight, bias, residual, norm_weight, norm_bias}, {out}); rec) {
    // x, weight, bias and residual themselves: the reference rule makes y and the sum again from them
    rec.save("x", x).save("weight", weight).save("y", y).save("residual", residual).save("keep", keep);
    rec.save("mean", mean).save("rstd", rstd);
    if (bias.defined()) rec.save("bias", bias);
    if (norm_weight.defined()) rec.save("norm_weight", norm_weight);
    rec.attr("p", p).attr("normalized_shape", shape_str(normalized_shape)).attr("eps", eps);
    const bool has_bias = bias.defined(), has_norm_weight = norm_weight.defined();
    rec.forward([&](const ForwardContext& f) -> TensorList {  // layer_norm's tangent for the sum's
      const Tensor factor = keep_factor(keep, scale, x.dtype());
      const Tensor primal_sum = add(f.input(3), mul(linear(f.input(0), f.input(1), f.input(2)), factor));
      Tensor tsum = f.tangent_or_zeros(3);
      if (const Tensor ty = linear_tangent(f); ty.defined()) tsum = add(tsum, mul(ty, factor));
      return {layer_norm_tangent(primal_sum, tsum, has_norm_weight ? f.input(4) : Tensor(),
                                 f.has_tangent(4) ? f.tangent(4) : Tensor(), f.has_tangent(5) ? f.tangent(5) : Tensor(),
                                 k, eps)};
    });
    auto reference = [normalized_shape, eps, scale, has_bias, has_norm_weight](const BackwardContext& ctx) {
      const Tensor factor = keep_factor(ctx.saved("keep"), scale, ctx.input_dtype(0));
      const Tensor y = linear(ctx.saved("x"), ctx.saved("weight"), has_bias ? ctx.saved("bias") : Tensor());
      const Tensor sum = add(ctx.saved("residual"), mul(y, factor));
      const bool linear_wanted = ctx.needs_grad(0) || ctx.needs_grad(1) || ctx.needs_grad(2);
      TensorList grads = layer_norm_reference_grads(
          sum, ctx.grad(), has_norm_weight ? ctx.saved("norm_weight") : Tensor(), normalized_shape,
          {linear_wanted || ctx.needs_grad(3), ctx.needs_grad(4), ctx.needs_grad(5)}, eps);
      const Tensor dsum = grads[0];
      grads[0] = ctx.needs_grad(3) ? dsum : Tensor();  // {dresidual, dnorm_weight, dnorm_bias}
      TensorList linear_grads = linear_wanted ? linear_reference_grads(ctx, mul(dsum, factor)) : TensorList(3);
      linear_grads.insert(linear_grads.end(), grads.begin(), grads.end());
      return linear_grads;
    };
    rec.backward(reference, [scale, N, C, has_norm_weight](const BackwardContext& ctx) {
      return norm_then_linear_backward(ctx, scale, N, C, has_norm_weight);
    });
  }
  return out;
}

}  // namespace tg
