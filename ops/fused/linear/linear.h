#pragma once
// linear: y = x @ weight^T + bias (PyTorch's F.linear), one tape entry on every device, for what
// matmul(x, transpose(weight, 0, 1)) + bias records as three. On the CPU the product and the bias
// add are one pass (the GEMM's sums start at the bias; no separate sum for the bias gradient); on
// a GPU the bias is added to the cuBLAS product in place and its gradient is a sum over the rows.
//   x (..., in), weight (out, in), bias (out) or undefined -> y (..., out)
//   y[..., o] = sum_i x[..., i] * weight[o, i] + bias[o]
// Forward formula and backward rule per input: TG_OP_DOC in ops/fused/linear/linear.cpp
// (docs/ops.md).
// Derivation: y[r, o] = sum_i x[r, i] w[o, i] + b[o], so dL/dx[r, i] = sum_o grad[r, o] w[o, i],
// dL/dw[o, i] = sum_r grad[r, o] x[r, i], dL/db[o] = sum_r grad[r, o].
// The products run through matmul's GEMM (weight^T and grad^T are transposed views, not
// copies). That backward is the op's reference rule too (its matmuls are recorded when a
// backward creates a graph), except for dbias: a sum op there; on the CPU's fast path dweight and
// dbias come from the kernel below, in one parallel region.
// Forward mode: ty = linear(tx, weight) + linear(x, tweight, tbias).
#include "core/tensor.h"
#include "ops/matmul/gemm_cpu.h"

namespace tg {

class BackwardContext;
class ForwardContext;
class Recorder;

Tensor linear(const Tensor& x, const Tensor& weight, const Tensor& bias = {});

// linear in two halves, for layers that read one x (the q, k and v projections of
// self-attention): linear_outputs computes y_i = linear(x, weights[i], biases[i]) for 1 to 3
// weights (biases[i] undefined where none) without recording anything, on the CPU with x
// contiguous in one parallel region, each with the bits linear gives it; record_linear then
// records one y_i as linear does (within the caller's module scope). linear_outputs_into writes
// the given ys (contiguous, x's shape with each weight's out features last), with side work in
// the products' region (run alone where there is none: x on a GPU, not contiguous, or one weight).
TensorList linear_outputs(const Tensor& x, const TensorList& weights, const TensorList& biases);
void linear_outputs_into(const TensorList& ys, const Tensor& x, const TensorList& weights, const TensorList& biases,
                         GemmSideWorks side = {});
void record_linear(const Tensor& x, const Tensor& weight, const Tensor& bias, const Tensor& y);

// linear's pieces, for fused ops that begin with it (ops/fused/linear_relu_dropout). Their
// entries take the inputs x, weight, bias first, and save x and weight as linear's does
// (save_linear_inputs).
//   check_linear_args: the errors for bad x, weight or bias, naming `op`
//   linear_output_shape: y's shape, x's with weight's out features last
//   check_linear_residual: the errors for a residual added to y that is not of y's shape, dtype
//     and device, naming `op`
//   linear_forward_into: y (x's shape, out features last) = linear(x, weight, bias) by the kernels
//     (then relu, where the activation says so: in the GEMM's registers on the CPU, a kernel of its
//     own on a GPU), recording nothing; on the CPU the side work runs in the product's parallel
//     region
//   linear_tangent: linear's forward-mode rule, ty = tx W^T + x tW^T + tb
//   linear_reference_grads, linear_fast_grads: linear's two backward rules for `grad` (y's
//     shape) in place of the entry's own output gradient; on the CPU, make_grad (GemmPhase::before)
//     runs first in the fast rule's parallel region and writes grad (contiguous)
void check_linear_args(const Tensor& x, const Tensor& weight, const Tensor& bias, const char* op);
Shape linear_output_shape(const Tensor& x, const Tensor& weight);
void check_linear_residual(const Tensor& residual, const Tensor& x, const Tensor& weight, const char* op);
void linear_forward_into(const Tensor& y, const Tensor& x, const Tensor& weight, const Tensor& bias,
                         GemmSideWorks side = {}, GemmActivation activation = GemmActivation::none);
Tensor linear_tangent(const ForwardContext& f);
void save_linear_inputs(Recorder& rec, const Tensor& x, const Tensor& weight);
TensorList linear_reference_grads(const BackwardContext& ctx, const Tensor& grad);
TensorList linear_fast_grads(const BackwardContext& ctx, const Tensor& grad, const GemmSideWork* make_grad = nullptr);
//   linear_fast_grads_masked: linear_fast_grads for grad = keep * (the entry's output gradient) *
//     scale (a dropout's backward, keep a bool mask of y's shape), on the CPU in float32 made by the
//     products' team first (GemmPhase::before)
TensorList linear_fast_grads_masked(const BackwardContext& ctx, const Tensor& keep, double scale);

// Kernel, on CPU tensors (the forward adds the bias inside matmul_forward_cpu), each output
// written where defined:
//   dweight (out, in) = grad^T @ x                 grad (rows, out) contiguous, x (rows, in)
//   dx (rows, in)     = grad @ weight (out, in)    (dx += that where add_dx; dx contiguous)
//   dbias (out)       = sum over rows of grad
// in one OpenMP parallel region: the products as one team (matmul_group_cpu), the bias's column
// sums beside them, the threads taking turns over their rows (GemmPhase::chain); make_grad (where
// given, GemmPhase::before work) before them all, writing grad.
void linear_backward_cpu(const Tensor& dx, bool add_dx, const Tensor& dweight, const Tensor& dbias, const Tensor& grad,
                         const Tensor& x, const Tensor& weight, const GemmSideWork* make_grad = nullptr);

}  // namespace tg
