#include "ops/layer_norm/layer_norm.h"

#include <fmt/format.h>

#include "core/copy.h"
#include "core/cuda/cuda_only.h"
#include "core/factories.h"
#include "core/tape.h"
#include "ops/common/contiguous_input.h"

namespace tg {

namespace {

void check_affine(const Tensor& t, const char* arg, const Tensor& x, const Shape& normalized_shape) {
  if (!t.defined()) return;
  check_floating(t, "layer_norm", arg);
  check_same_dtype(x, t, "layer_norm");
  check_same_device(x, t, "layer_norm");
  if (t.shape() != normalized_shape)
    throw Error("layer_norm", fmt::format("{} has shape {} but normalized_shape is {}", arg, shape_str(t.shape()),
                                          shape_str(normalized_shape)));
}

void check_args(const Tensor& x, const Shape& normalized_shape, const Tensor& weight, const Tensor& bias, double eps) {
  check_floating(x, "layer_norm", "x");
  const int64_t k = static_cast<int64_t>(normalized_shape.size());
  bool matches = k >= 1 && k <= x.dim();
  for (int64_t d = 0; matches && d < k; ++d)
    matches = normalized_shape[d] > 0 && normalized_shape[d] == x.size(x.dim() - k + d);
  if (!matches)
    throw Error("layer_norm", fmt::format("normalized_shape {} must be non-empty, positive and equal to the "
                                          "trailing dims of x {}", shape_str(normalized_shape),
                                          shape_str(x.shape())));
  check_affine(weight, "weight", x, normalized_shape);
  check_affine(bias, "bias", x, normalized_shape);
  if (!(eps > 0)) throw Error("layer_norm", fmt::format("eps must be positive, got {}", eps));
}

}  // namespace

Tensor layer_norm(const Tensor& x, Shape normalized_shape, const Tensor& weight, const Tensor& bias, double eps) {
  check_args(x, normalized_shape, weight, bias, eps);
  const Shape rows_shape(x.shape().begin(), x.shape().end() - static_cast<int64_t>(normalized_shape.size()));
  const int64_t N = numel(rows_shape), C = numel(normalized_shape);
  Tensor xc = contiguous_or_copy(x), wc = contiguous_or_copy(weight);
  Tensor out = empty(x.shape(), x.dtype(), x.device());
  Tensor mean = empty(rows_shape, x.dtype(), x.device()), rstd = empty(rows_shape, x.dtype(), x.device());
  if (x.is_cuda())
    TG_CUDA_ONLY(layer_norm_forward_cuda(out, mean, rstd, xc, wc, contiguous_or_copy(bias), N, C, eps));
  else
    layer_norm_forward_cpu(out, mean, rstd, xc, wc, contiguous_or_copy(bias), N, C, eps);

  if (Recorder rec("layer_norm", {x, weight, bias}, {out}); rec) {
    rec.save("x", xc).save("mean", mean).save("rstd", rstd);
    if (wc.defined()) rec.save("weight", wc);
    rec.attr("normalized_shape", shape_str(normalized_shape)).attr("eps", eps);
    const bool has_weight = wc.defined();
    rec.backward([N, C, has_weight](const BackwardContext& ctx) -> TensorList {
      const Tensor& x = ctx.saved("x");
      const Tensor& g = ctx.grad();
      auto grad_for = [&](int input) {
        return ctx.needs_grad(input) ? empty(ctx.input_shape(input), ctx.input_dtype(input), x.device()) : Tensor();
      };
      Tensor dx = grad_for(0), dweight = grad_for(1), dbias = grad_for(2);
      const Tensor &mean = ctx.saved("mean"), &rstd = ctx.saved("rstd");
      const Tensor w = has_weight ? ctx.saved("weight") : Tensor(), gc = contiguous_or_copy(g);
      if (x.is_cuda())
        TG_CUDA_ONLY(layer_norm_backward_cuda(dx, dweight, dbias, mean, rstd, gc, x, w, N, C));
      else
        layer_norm_backward_cpu(dx, dweight, dbias, mean, rstd, gc, x, w, N, C);
      return {dx, dweight, dbias};
    });
  }
  return out;
}

}  // namespace tg
