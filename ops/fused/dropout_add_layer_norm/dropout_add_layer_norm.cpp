#include "ops/fused/dropout_add_layer_norm/dropout_add_layer_norm.h"

#include <cstdint>

#include "core/cuda/cuda_only.h"
#include "core/factories.h"
#include "core/tape.h"
#include "ops/add/add.h"
#include "ops/common/contiguous_input.h"
#include "ops/common/op_doc.h"
#include "ops/common/philox_lanes.h"
#include "ops/common/vec_math.h"
#include "ops/dropout/dropout.h"
#include "ops/fused/dropout_add/dropout_add.h"
#include "ops/layer_norm/layer_norm.h"
#include "ops/mul/mul.h"

namespace tg {

LayerNormFusion dropout_add_rows(const DropoutAddNormSaved& saved, const Tensor& dx) {
  const uint8_t* kept = mask_bytes(saved.keep.data<bool>());
  const float *r = saved.residual.data<float>(), *xs = saved.x.data<float>();
  const auto s = static_cast<float>(saved.scale);
  const int64_t C = saved.C;
  LayerNormFusion rows{.x_row = [=](int64_t n, float* row) {
    masked_scaled_f32(row, kept + n * C, xs + n * C, r + n * C, C, s);
  }};
  if (float* d = dx.defined() ? dx.data<float>() : nullptr)
    rows.dx_row = [=](int64_t n, const float* dsum_row) {
      masked_scaled_f32(d + n * C, kept + n * C, dsum_row, nullptr, C, s);
    };
  return rows;
}

Tensor dropout_add_norm_kernels(const DropoutAddNormSaved& saved, const Tensor& g, const Tensor& dsum,
                                const Tensor& dweight, const Tensor& dbias, bool want_dx) {
  const Tensor sum = add(saved.residual, masked_scaled(saved.x, saved.keep, saved.scale));
  const Tensor &mean = saved.mean, &rstd = saved.rstd, &w = saved.weight;
  if (g.is_cuda())
    TG_CUDA_ONLY(layer_norm_backward_cuda(dsum, dweight, dbias, mean, rstd, g, sum, w, saved.N, saved.C));
  else
    layer_norm_backward_cpu(dsum, dweight, dbias, mean, rstd, g, sum, w, saved.N, saved.C);
  return want_dx ? masked_scaled(dsum, saved.keep, saved.scale) : Tensor();
}

namespace {

// The fast rule's gradients {dresidual, dx, dweight, dbias} (each where wanted): layer_norm's
// backward of the sum, made again from the saved mask, then dropout's backward of dsum. On the CPU
// in float32 row by row in layer_norm's kernel (the sum's row made in a scratch row, dx's after
// dsum's); otherwise kernel after kernel.
TensorList fast_backward(const BackwardContext& ctx, double scale, int64_t N, int64_t C, bool has_weight) {
  const DropoutAddNormSaved saved{contiguous_or_copy(ctx.saved("residual")), contiguous_or_copy(ctx.saved("x")),
                                  ctx.saved("keep"), ctx.saved("mean"), ctx.saved("rstd"),
                                  has_weight ? contiguous_or_copy(ctx.saved("weight")) : Tensor(), scale, N, C};
  const Tensor g = contiguous_or_copy(ctx.grad());
  auto grad_for = [&](int input, bool wanted) {
    return wanted ? empty(ctx.input_shape(input), ctx.input_dtype(input), g.device()) : Tensor();
  };
  const Tensor dsum = grad_for(0, ctx.needs_grad(0) || ctx.needs_grad(1));
  const Tensor dweight = grad_for(2, ctx.needs_grad(2)), dbias = grad_for(3, ctx.needs_grad(3));
  Tensor dx;
  if (!g.is_cuda() && g.dtype() == kF32) {
    dx = grad_for(1, ctx.needs_grad(1));
    layer_norm_backward_cpu(dsum, dweight, dbias, saved.mean, saved.rstd, g, Tensor(), saved.weight, N, C, false,
                            dropout_add_rows(saved, dx));
  } else {
    dx = dropout_add_norm_kernels(saved, g, dsum, dweight, dbias, ctx.needs_grad(1));
  }
  return {ctx.needs_grad(0) ? dsum : Tensor(), dx, dweight, dbias};
}

}  // namespace

TG_OP_DOC(dropout_add_layer_norm) {
  return {.summary = "layer_norm(residual + dropout(x)) in one pass each way (a post-LN residual connection)",
          .forward_text = "out = layer_norm(sum), sum = residual + (keep ? x / (1 - p) : 0), keep[i] = (u[i] > p) "
                          "as dropout draws it",
          .forward_tex = R"(\mathrm{out} = \hat{s} \odot w + b,\quad s = r + \frac{m \odot x}{1 - p})",
          .backward = {{"residual",
                        "dL/dresidual = dL/dsum, layer_norm's dL/dx for the sum",
                        R"(\dLd{r} = \dLd{s})"},
                       {"x", "dL/dx = keep ? dL/dsum / (1 - p) : 0", R"(\dLd{x} = \frac{m \odot \dLd{s}}{1 - p})"},
                       {"weight",
                        "dL/dweight = sum over rows of dL/dout * norm(sum)",
                        R"(\dLd{w} = \sum_{\text{rows}} \dLd{\mathrm{out}} \odot \hat{s})"},
                       {"bias",
                        "dL/dbias = sum over rows of dL/dout",
                        R"(\dLd{b} = \sum_{\text{rows}} \dLd{\mathrm{out}})"}}};
}

Tensor dropout_add_layer_norm(const Tensor& residual, const Tensor& x, double p, bool training,
                              const Shape& normalized_shape, const Tensor& weight, const Tensor& bias, double eps,
                              Generator& gen) {
  check_dropout_add_args(residual, x, p, "dropout_add_layer_norm");
  check_layer_norm_args(x, normalized_shape, weight, bias, eps, "dropout_add_layer_norm");
  if (!training || p == 0) return layer_norm(add(residual, x), normalized_shape, weight, bias, eps);
  const auto k = static_cast<int64_t>(normalized_shape.size());
  const Shape rows_shape(x.shape().begin(), x.shape().end() - k);
  const int64_t n = x.numel(), N = numel(rows_shape), C = numel(normalized_shape);
  const double scale = p < 1 ? 1 / (1 - p) : 0;
  const DropoutDraw draw = reserve_dropout(gen, static_cast<uint64_t>(n), p);
  const Tensor xc = contiguous_or_copy(x), rc = contiguous_or_copy(residual);
  const Tensor wc = contiguous_or_copy(weight), bc = contiguous_or_copy(bias);
  const Tensor sum = empty(x.shape(), x.dtype(), x.device()), keep = empty(x.shape(), kBool, x.device());
  Tensor out = empty(x.shape(), x.dtype(), x.device());
  const Tensor mean = empty(rows_shape, x.dtype(), x.device()), rstd = empty(rows_shape, x.dtype(), x.device());
  if (x.is_cuda()) {
    TG_CUDA_ONLY(dropout_forward_cuda(sum, keep, xc, draw, scale, false, rc));
    TG_CUDA_ONLY(layer_norm_forward_cuda(out, mean, rstd, sum, wc, bc, N, C, eps));
  } else if (x.dtype() == kF32 && !draw.keeps_nothing()) {  // p < 1: the draw in layer_norm's region
    auto* kept = reinterpret_cast<uint8_t*>(keep.data<bool>());
    const LayerNormFusion drawing{.before = [&] {
      dropout_forward_f32_team(sum.data<float>(), kept, xc.data<float>(), rc.data<float>(), n, draw,
                               static_cast<float>(scale), false);
    }};
    layer_norm_forward_cpu(out, mean, rstd, sum, wc, bc, N, C, eps, drawing);
  } else {
    dropout_forward_cpu(sum, keep, xc, draw, scale, false, rc);
    layer_norm_forward_cpu(out, mean, rstd, sum, wc, bc, N, C, eps);
  }

  if (Recorder rec("dropout_add_layer_norm", {residual, x, weight, bias}, {out}); rec) {
    // residual, x and weight themselves: a backward that creates a graph differentiates through them.
    rec.save("residual", residual).save("x", x).save("keep", keep).save("mean", mean).save("rstd", rstd);
    if (weight.defined()) rec.save("weight", weight);
    rec.attr("p", p).attr("normalized_shape", shape_str(normalized_shape)).attr("eps", eps);
    const bool has_weight = weight.defined();
    rec.forward([&](const ForwardContext& f) -> TensorList {  // layer_norm's tangent for the sum's
      const Tensor factor = keep_factor(keep, scale, x.dtype());
      const Tensor primal_sum = add(f.input(0), mul(f.input(1), factor));
      const Tensor tsum = add(f.tangent_or_zeros(0), mul(f.tangent_or_zeros(1), factor));
      const Tensor tweight = f.has_tangent(2) ? f.tangent(2) : Tensor();
      const Tensor tbias = f.has_tangent(3) ? f.tangent(3) : Tensor();
      return {layer_norm_tangent(primal_sum, tsum, has_weight ? f.input(2) : Tensor(), tweight, tbias, k, eps)};
    });
    auto reference = [normalized_shape, eps, scale, has_weight](const BackwardContext& ctx) -> TensorList {
      const Tensor factor = keep_factor(ctx.saved("keep"), scale, ctx.input_dtype(1));
      const Tensor sum = add(ctx.saved("residual"), mul(ctx.saved("x"), factor));
      const TensorList norm_grads = layer_norm_reference_grads(
          sum, ctx.grad(), has_weight ? ctx.saved("weight") : Tensor(), normalized_shape,
          {ctx.needs_grad(0) || ctx.needs_grad(1), ctx.needs_grad(2), ctx.needs_grad(3)}, eps);
      const Tensor& dsum = norm_grads[0];
      return {ctx.needs_grad(0) ? dsum : Tensor(), ctx.needs_grad(1) ? mul(dsum, factor) : Tensor(), norm_grads[1],
              norm_grads[2]};
    };
    rec.backward(reference, [scale, N, C, has_weight](const BackwardContext& ctx) {
      return fast_backward(ctx, scale, N, C, has_weight);
    });
  }
  return out;
}

}  // namespace tg
