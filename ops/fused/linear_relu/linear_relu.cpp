#include "ops/fused/linear_relu/linear_relu.h"

#include <cstdint>

#include "core/dispatch.h"
#include "core/factories.h"
#include "core/tape.h"
#include "ops/common/contiguous_input.h"
#include "ops/common/op_doc.h"
#include "ops/common/vec_math.h"
#include "ops/fused/linear/linear.h"
#include "ops/matmul/gemm_cpu.h"
#include "ops/mul/mul.h"
#include "ops/relu/relu.h"
#include "ops/relu/relu_math.h"

namespace tg {

namespace {

// gy[i] = out[i] > 0 ? grad[i] : 0 (relu's backward) for i < n. The loads come before the select,
// so the loop vectorises (ops/common/vec_math.h).
template <class T>
[[gnu::always_inline]] inline void relu_grad_body(T* gy, const T* grad, const T* out, int64_t n) {
#pragma omp simd
  for (int64_t i = 0; i < n; ++i) {
    const T g = grad[i], y = out[i];
    gy[i] = relu_math::backward(g, y);
  }
}
TG_VEC_CLONES void relu_grad(float* gy, const float* grad, const float* out, int64_t n) {
  relu_grad_body(gy, grad, out, n);
}
void relu_grad(double* gy, const double* grad, const double* out, int64_t n) { relu_grad_body(gy, grad, out, n); }

// gy = relu's backward of grad at out, thread `t` of `threads` taking its share, before linear's
// products read gy.
struct ReluMaskWork {
  Tensor gy, grad, out;
};

void relu_mask_part(const void* context, int t, int threads) {
  const auto& w = *static_cast<const ReluMaskWork*>(context);
  const int64_t n = w.gy.numel(), first = n * t / threads, last = n * (t + 1) / threads;
  dispatch_floating(w.gy.dtype(), "linear_relu", [&](auto zero) {
    using T = decltype(zero);
    relu_grad(w.gy.data<T>() + first, w.grad.data<T>() + first, w.out.data<T>() + first, last - first);
  });
}

TensorList linear_relu_fast_grads(const BackwardContext& ctx) {
  const Tensor grad = contiguous_or_copy(ctx.grad()), out = ctx.saved("out");
  if (grad.is_cuda()) return linear_fast_grads(ctx, mul(grad, relu_step(out)));
  const ReluMaskWork work{empty(grad.shape(), grad.dtype(), grad.device()), grad, out};
  const GemmSideWork make_gy{relu_mask_part, &work, GemmPhase::before};
  return linear_fast_grads(ctx, work.gy, &make_gy);
}

}  // namespace

TG_OP_DOC(linear_relu) {
  return {.summary = "relu(x W^T + b) in one parallel region each way, relu applied in the GEMM's registers "
                     "(a feed-forward's first layer without dropout)",
          .forward_text = "out = max(y, 0), y = x @ weight^T + bias",
          .forward_tex = R"(\mathrm{out} = \max(y, 0),\quad y = x W^\top + b)",
          .backward = {{"x",
                        "dL/dx = dL/dy @ weight, dL/dy = dL/dout * (out > 0)",
                        R"(\dLd{x} = \dLd{y}\, W,\quad \dLd{y} = \dLd{\mathrm{out}} \odot [\mathrm{out} > 0])"},
                       {"weight", "dL/dweight = dL/dy^T @ x (over all rows of x)", R"(\dLd{W} = \dLd{y}^\top x)"},
                       {"bias", "dL/dbias = sum over rows of dL/dy", R"(\dLd{b} = \sum_{\text{rows}} \dLd{y})"}}};
}

Tensor linear_relu(const Tensor& x, const Tensor& weight, const Tensor& bias) {
  check_linear_args(x, weight, bias, "linear_relu");
  const Tensor out = empty(linear_output_shape(x, weight), x.dtype(), x.device());
  linear_forward_into(out, x, weight, bias, {}, GemmActivation::relu);
  if (Recorder rec("linear_relu", {x, weight, bias}, {out}); rec) {
    save_linear_inputs(rec, x, weight);
    rec.save("out", out);
    rec.forward([out](const ForwardContext& f) -> TensorList { return {mul(linear_tangent(f), relu_step(out))}; });
    rec.backward(
        [](const BackwardContext& ctx) {  // linear's rule for gy = grad * (out > 0), with ops
          return linear_reference_grads(ctx, mul(ctx.grad(), relu_step(ctx.saved("out"))));
        },
        linear_relu_fast_grads);
  }
  return out;
}

}  // namespace tg
