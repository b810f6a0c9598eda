#include "ops/fused/linear/linear.h"

#include <fmt/format.h>

#include <array>
#include <span>

#include "core/copy.h"
#include "core/cuda/cuda_only.h"
#include "core/factories.h"
#include "core/tape.h"
#include "ops/add/add.h"
#include "ops/common/contiguous_input.h"
#include "ops/common/op_doc.h"
#include "ops/common/vec_math.h"
#include "ops/contiguous/contiguous.h"
#include "ops/dropout/dropout.h"
#include "ops/matmul/gemm_cpu.h"
#include "ops/matmul/matmul.h"
#include "ops/relu/relu.h"
#include "ops/reshape/reshape.h"
#include "ops/sum/sum.h"
#include "ops/transpose/transpose.h"

namespace tg {

void check_linear_args(const Tensor& x, const Tensor& weight, const Tensor& bias, const char* op) {
  check_floating(x, op, "x");
  check_floating(weight, op, "weight");
  check_same_dtype(x, weight, op);
  check_same_device(x, weight, op);
  if (bias.defined()) {
    check_floating(bias, op, "bias");
    check_same_dtype(x, bias, op);
    check_same_device(x, bias, op);
  }
  const bool fits = weight.dim() == 2 && x.dim() >= 1 && x.size(-1) == weight.size(1) &&
                    (!bias.defined() || (bias.dim() == 1 && bias.size(0) == weight.size(0)));
  if (!fits)
    throw Error(op, fmt::format("expected x (..., in), weight (out, in), bias (out), got x {} weight {} bias {}",
                                shape_str(x.shape()), shape_str(weight.shape()),
                                bias.defined() ? shape_str(bias.shape()) : "none"));
}

Shape linear_output_shape(const Tensor& x, const Tensor& weight) {
  Shape shape = x.shape();
  shape.back() = weight.size(0);
  return shape;
}

void check_linear_residual(const Tensor& residual, const Tensor& x, const Tensor& weight, const char* op) {
  check_floating(residual, op, "residual");
  check_same_dtype(residual, x, op);
  check_same_device(residual, x, op);
  if (const Shape y_shape = linear_output_shape(x, weight); residual.shape() != y_shape)
    throw Error(op, fmt::format("residual must have linear's output shape (..., out) = {}, got {}", shape_str(y_shape),
                                shape_str(residual.shape())));
}

// The reference rule (the derivative in linear.h): every step a tapegrad op, recorded when grad
// mode is on.
TensorList linear_reference_grads(const BackwardContext& ctx, const Tensor& grad) {
  // grad (..., out)
  Tensor dx;
  if (ctx.needs_grad(0)) dx = matmul(grad, ctx.saved("weight"));  // (..., out) @ (out, in) -> x's shape
  if (!ctx.needs_grad(1) && !ctx.needs_grad(2)) return {dx, {}, {}};
  const Tensor grad2d = contiguous(flatten_rows(grad));  // (rows, out)
  return {dx, ctx.needs_grad(1) ? matmul(transpose(grad2d, 0, 1), flatten_rows(ctx.saved("x"))) : Tensor(),
          ctx.needs_grad(2) ? sum(grad2d, {0}) : Tensor()};  // (out, rows) @ (rows, in); (out)
}

// The fast rule, on the CPU: dx, dweight and dbias (those wanted) by one kernel in one parallel
// region, dx added into x's gradient gathered so far where the backward pass offers it (instead
// of a sum of its own). On a GPU, the reference rule's ops.
TensorList linear_fast_grads(const BackwardContext& ctx, const Tensor& grad, const GemmSideWork* make_grad) {
  // grad (..., out)
  if (grad.is_cuda()) return linear_reference_grads(ctx, grad);
  Tensor dx = ctx.needs_grad(0) ? ctx.add_into_gathered(0) : Tensor();  // x's shape
  const bool add_dx = dx.defined();
  if (ctx.needs_grad(0) && !add_dx) dx = empty(ctx.input_shape(0), grad.dtype(), grad.device());
  const Tensor dweight = ctx.needs_grad(1) ? empty(ctx.input_shape(1), grad.dtype(), grad.device()) : Tensor();
  const Tensor dbias = ctx.needs_grad(2) ? empty({grad.size(-1)}, grad.dtype(), grad.device()) : Tensor();
  linear_backward_cpu(dx.defined() ? flatten_rows(dx) : Tensor(), add_dx, dweight, dbias,
                      contiguous(flatten_rows(grad)), dweight.defined() ? flatten_rows(ctx.saved("x")) : Tensor(),
                      dx.defined() ? ctx.saved("weight") : Tensor(), make_grad);
  return {dx, dweight, dbias};
}

namespace {

// gy (n) = keep ? grad * scale : 0, thread `t` of `threads` taking its share (the bits do not
// depend on the split: one product per element).
struct MaskWork {
  float* gy;
  const uint8_t* keep;
  const float* grad;
  int64_t n;
  float scale;
};

void mask_part(const void* context, int t, int threads) {
  const auto& w = *static_cast<const MaskWork*>(context);
  const int64_t first = w.n * t / threads, last = w.n * (t + 1) / threads;
  masked_scaled_f32(w.gy + first, w.keep + first, w.grad + first, nullptr, last - first, w.scale);
}

}  // namespace

TensorList linear_fast_grads_masked(const BackwardContext& ctx, const Tensor& keep, double scale) {
  const Tensor g = contiguous_or_copy(ctx.grad());
  if (g.is_cuda() || g.dtype() != kF32) return linear_fast_grads(ctx, masked_scaled(g, keep, scale));
  const Tensor gy = empty(g.shape(), g.dtype(), g.device());
  const MaskWork work{gy.data<float>(), mask_bytes(keep.data<bool>()), g.data<float>(), g.numel(),
                      static_cast<float>(scale)};
  const GemmSideWork make_gy{mask_part, &work, GemmPhase::before};
  return linear_fast_grads(ctx, gy, &make_gy);
}

TG_OP_DOC(linear) {
  return {.summary = "y = x W^T + b as one op",
          .forward_text = "y = x @ weight^T + bias",
          .forward_tex = R"(y = x W^\top + b)",
          .backward = {{"x",
                        "dL/dx = dL/dout @ weight",
                        R"(\dLd{x} = \dLd{y}\, W)"},
                       {"weight",
                        "dL/dweight = dL/dout^T @ x (over all rows of x)",
                        R"(\dLd{W} = \dLd{y}^\top x)"},
                       {"bias",
                        "dL/dbias = sum over rows of dL/dout",
                        R"(\dLd{b} = \sum_{\text{rows}} \dLd{y})"}}};
}

void linear_forward_into(const Tensor& y, const Tensor& x, const Tensor& weight, const Tensor& bias,
                         GemmSideWorks side, GemmActivation activation) {
  const int64_t in_features = weight.size(1), out_features = weight.size(0);
  const Shape& y_shape = y.shape();
  const Tensor x_m = x.dim() > 1 ? x : make_view(x, {1, in_features}, {in_features * x.strides()[0], x.strides()[0]},
                                                   x.offset());  // (in) -> (1, in)
  const Tensor y_m = y.dim() > 1 ? y : make_view(y, {1, out_features}, {out_features, 1}, 0);
  // (..., in) @ (in, out) + bias (out) -> (..., out)
  if (y.is_cuda()) {
    TG_CUDA_ONLY(matmul_forward_cuda(y_m, x_m, transposed_view(weight)));  // then the bias, added to every row
    if (bias.defined())
      add_into_(y, make_view(bias, y_shape, broadcast_strides(bias.shape(), bias.strides(), y_shape), bias.offset()));
    if (activation == GemmActivation::relu) TG_CUDA_ONLY(relu_forward_cuda(y, y));
  } else {
    matmul_forward_cpu(y_m, x_m, transposed_view(weight), contiguous_or_copy(bias), side, activation);
  }
}

Tensor linear_tangent(const ForwardContext& f) {  // ty = tx W^T + x tW^T + tb
  Tensor ty;
  if (f.has_tangent(0)) ty = linear(f.tangent(0), f.input(1));
  if (f.has_tangent(1) || f.has_tangent(2)) {
    const Tensor t = linear(f.input(0), f.tangent_or_zeros(1), f.tangent(2));
    ty = ty.defined() ? add(ty, t) : t;
  }
  return ty;
}

namespace {

// linear_outputs' checks: 1 to kGemmMaxGroup weights, as many biases, each as linear takes them.
void check_linear_outputs_args(const Tensor& x, const TensorList& weights, const TensorList& biases) {
  if (weights.size() != biases.size() || weights.empty() || weights.size() > size_t(kGemmMaxGroup))
    throw Error("linear", fmt::format("linear_outputs takes 1 to {} weights and as many biases, got {} and {}",
                                      kGemmMaxGroup, weights.size(), biases.size()));
  for (size_t i = 0; i < weights.size(); ++i) check_linear_args(x, weights[i], biases[i], "linear");
}

// linear_outputs_into for checked arguments.
void compute_linear_outputs(const TensorList& ys, const Tensor& x, const TensorList& weights,
                            const TensorList& biases, GemmSideWorks side) {
  if (weights.size() == 1 || x.is_cuda() || x.dim() < 2 || !x.is_contiguous() || x.numel() == 0) {
    run_side_alone(side, {GemmPhase::before});
    for (size_t i = 0; i < weights.size(); ++i) linear_forward_into(ys[i], x, weights[i], biases[i]);
    run_side_alone(side, {GemmPhase::chain, GemmPhase::after});
    return;
  }
  // One product per weight: y (rows, out) = x (rows, in) @ weight^T + bias, x's rows stacked as
  // linear_forward_into's matmul stacks them. Views, not the reshape op: nothing here is an op of
  // its own.
  const int64_t in = x.size(-1), rows = x.numel() / in;
  const Tensor x2d = make_view(x, {rows, in}, {in, 1}, x.offset());
  std::array<MatmulProduct, kGemmMaxGroup> products;
  for (size_t i = 0; i < weights.size(); ++i) {
    const int64_t out = weights[i].size(0);
    products[i] = {make_view(ys[i], {rows, out}, {out, 1}, ys[i].offset()), x2d, transposed_view(weights[i]),
                   contiguous_or_copy(biases[i]), false};
  }
  matmul_group_cpu(std::span(products.data(), weights.size()), side);
}

}  // namespace

TensorList linear_outputs(const Tensor& x, const TensorList& weights, const TensorList& biases) {
  check_linear_outputs_args(x, weights, biases);
  TensorList ys;
  for (const Tensor& weight : weights) ys.push_back(empty(linear_output_shape(x, weight), x.dtype(), x.device()));
  compute_linear_outputs(ys, x, weights, biases, {});
  return ys;
}

void linear_outputs_into(const TensorList& ys, const Tensor& x, const TensorList& weights, const TensorList& biases,
                         GemmSideWorks side) {
  check_linear_outputs_args(x, weights, biases);
  if (ys.size() != weights.size())
    throw Error("linear", fmt::format("linear_outputs_into takes an output per weight, got {} for {}", ys.size(),
                                      weights.size()));
  for (size_t i = 0; i < weights.size(); ++i)
    if (!ys[i].is_contiguous() || ys[i].shape() != linear_output_shape(x, weights[i]) ||
        ys[i].dtype() != x.dtype() || ys[i].device() != x.device())
      throw Error("linear", fmt::format("linear_outputs_into needs a contiguous output of shape {} for weight {}, got "
                                        "{}", shape_str(linear_output_shape(x, weights[i])), i, ys[i].describe()));
  compute_linear_outputs(ys, x, weights, biases, side);
}

void save_linear_inputs(Recorder& rec, const Tensor& x, const Tensor& weight) {
  if (weight.requires_grad()) rec.save("x", x);  // dweight needs x, dx needs weight
  if (x.requires_grad()) rec.save("weight", weight);
}

void record_linear(const Tensor& x, const Tensor& weight, const Tensor& bias, const Tensor& y) {
  if (Recorder rec("linear", {x, weight, bias}, {y}); rec) {
    save_linear_inputs(rec, x, weight);
    rec.forward([](const ForwardContext& f) -> TensorList { return {linear_tangent(f)}; });
    rec.backward([](const BackwardContext& ctx) { return linear_reference_grads(ctx, ctx.grad()); },
                 [](const BackwardContext& ctx) { return linear_fast_grads(ctx, ctx.grad()); });
  }
}

Tensor linear(const Tensor& x, const Tensor& weight, const Tensor& bias) {
  const Tensor y = linear_outputs(x, {weight}, {bias})[0];
  record_linear(x, weight, bias, y);  // only this entry checks the output (anomaly mode) and records
  return y;
}

}  // namespace tg
