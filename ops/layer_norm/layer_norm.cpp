#include "ops/layer_norm/layer_norm.h"

#include <fmt/format.h>

#include "core/copy.h"
#include "core/cuda/cuda_only.h"
#include "core/factories.h"
#include "core/tape.h"
#include "ops/add/add.h"
#include "ops/common/contiguous_input.h"
#include "ops/common/op_doc.h"
#include "ops/div/div.h"
#include "ops/mean/mean.h"
#include "ops/mul/mul.h"
#include "ops/sqrt/sqrt.h"
#include "ops/sub/sub.h"
#include "ops/sum/sum.h"

namespace tg {

namespace {

void check_affine(const Tensor& t, const char* arg, const Tensor& x, const Shape& normalized_shape, const char* op) {
  if (!t.defined()) return;
  check_floating(t, op, arg);
  check_same_dtype(x, t, op);
  check_same_device(x, t, op);
  if (t.shape() != normalized_shape)
    throw Error(op, fmt::format("{} has shape {} but normalized_shape is {}", arg, shape_str(t.shape()),
                                shape_str(normalized_shape)));
}

// The rules' view of a row: norm and rstd computed again from x with tapegrad ops (the saved
// mean and rstd would be constants to a backward that creates a graph). rstd keeps the
// normalised dims as size 1, so both broadcast against x.
struct Normalized {
  Tensor norm, rstd;
};

// The last k dims of a rank-`rank` tensor: those layer_norm normalises over.
std::vector<int64_t> trailing_dims(int64_t rank, int64_t k) {
  std::vector<int64_t> dims;
  for (int64_t d = rank - k; d < rank; ++d) dims.push_back(d);
  return dims;
}

Normalized normalize(const Tensor& x, const std::vector<int64_t>& dims, double eps) {
  const Tensor centered = sub(x, mean(x, dims, true));
  const Tensor rstd = div(1.0, sqrt(add(mean(mul(centered, centered), dims, true), eps)));
  return {mul(centered, rstd), rstd};
}

// J v, for J = d norm / d x of each row: rstd * (v - mean(v) - norm * mean(v * norm)). J is
// symmetric, so the same product takes dnorm back to dx and x's tangent forward to norm's.
Tensor norm_jacobian_product(const Normalized& n, const Tensor& v, const std::vector<int64_t>& dims) {
  return mul(n.rstd, sub(sub(v, mean(v, dims, true)), mul(n.norm, mean(mul(v, n.norm), dims, true))));
}

}  // namespace

void check_layer_norm_args(const Tensor& x, const Shape& normalized_shape, const Tensor& weight, const Tensor& bias,
                           double eps, const char* op, std::array<const char*, 3> names) {
  check_floating(x, op, names[0]);
  const int64_t k = static_cast<int64_t>(normalized_shape.size());
  bool matches = k >= 1 && k <= x.dim();
  for (int64_t d = 0; matches && d < k; ++d)
    matches = normalized_shape[d] > 0 && normalized_shape[d] == x.size(x.dim() - k + d);
  if (!matches)
    throw Error(op, fmt::format("normalized_shape {} must be non-empty, positive and equal to the trailing dims of {} "
                                "{}", shape_str(normalized_shape), names[0], shape_str(x.shape())));
  check_affine(weight, names[1], x, normalized_shape, op);
  check_affine(bias, names[2], x, normalized_shape, op);
  if (!(eps > 0)) throw Error(op, fmt::format("eps must be positive, got {}", eps));
}

Tensor layer_norm_tangent(const Tensor& x, const Tensor& tx, const Tensor& weight, const Tensor& tweight,
                          const Tensor& tbias, int64_t k, double eps) {
  const std::vector<int64_t> dims = trailing_dims(x.dim(), k);
  const Normalized n = normalize(x, dims, eps);
  const Tensor dnorm = norm_jacobian_product(n, tx, dims);  // norm' * weight + norm * weight' + bias'
  Tensor tangent = weight.defined() ? mul(dnorm, weight) : dnorm;
  if (tweight.defined()) tangent = add(tangent, mul(n.norm, tweight));
  if (tbias.defined()) tangent = add(tangent, tbias);
  return tangent;
}

TensorList layer_norm_reference_grads(const Tensor& x, const Tensor& g, const Tensor& weight,
                                      const Shape& normalized_shape, std::array<bool, 3> wanted, double eps) {
  const std::vector<int64_t> dims = trailing_dims(x.dim(), static_cast<int64_t>(normalized_shape.size()));
  const Normalized n = normalize(x, dims, eps);
  Tensor dx, dweight, dbias;
  if (wanted[0]) dx = norm_jacobian_product(n, weight.defined() ? mul(g, weight) : g, dims);
  if (wanted[1]) dweight = sum_to(mul(g, n.norm), normalized_shape);
  if (wanted[2]) dbias = sum_to(g, normalized_shape);
  return {dx, dweight, dbias};
}

TG_OP_DOC(layer_norm) {
  return {.summary = "each row normalised over its trailing dims, then scaled and shifted",
          .forward_text = "out = norm * weight + bias, norm = (x - mean) * rstd, rstd = 1 / sqrt(var + "
                          "eps), mean and var (biased) over each row's trailing dims",
          .forward_tex = R"(\mathrm{out} = \hat{x} \odot w + b,\quad \hat{x} = \frac{x - )"
                         R"(\mu}{\sqrt{\sigma^2 + \varepsilon}})",
          .backward = {{"x",
                        "dL/dx = rstd * (dL/dnorm - mean(dL/dnorm) - norm * mean(dL/dnorm * norm)), "
                        "dL/dnorm = dL/dout * weight, means over the row",
                        R"(\dLd{x} = \frac{1}{\sqrt{\sigma^2 + \varepsilon}} \left(\dLd{\hat{x}} - )"
                        R"(\operatorname{mean}(\dLd{\hat{x}}) - \hat{x} \odot )"
                        R"(\operatorname{mean}(\dLd{\hat{x}} \odot \hat{x})\right),\quad \dLd{\hat{x}} = )"
                        R"(\dLd{\mathrm{out}} \odot w)"},
                       {"weight",
                        "dL/dweight = sum over rows of dL/dout * norm",
                        R"(\dLd{w} = \sum_{\text{rows}} \dLd{\mathrm{out}} \odot \hat{x})"},
                       {"bias",
                        "dL/dbias = sum over rows of dL/dout",
                        R"(\dLd{b} = \sum_{\text{rows}} \dLd{\mathrm{out}})"}}};
}

Tensor layer_norm(const Tensor& x, Shape normalized_shape, const Tensor& weight, const Tensor& bias, double eps) {
  check_layer_norm_args(x, normalized_shape, weight, bias, eps, "layer_norm");
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
    // x and weight themselves (not their contiguous copies): a backward that creates a graph
    // differentiates through them.
    rec.save("x", x).save("mean", mean).save("rstd", rstd);
    if (weight.defined()) rec.save("weight", weight);
    rec.attr("normalized_shape", shape_str(normalized_shape)).attr("eps", eps);
    const bool has_weight = weight.defined();
    const int64_t k = static_cast<int64_t>(normalized_shape.size());
    rec.forward([&](const ForwardContext& f) -> TensorList {
      const Tensor tweight = f.has_tangent(1) ? f.tangent(1) : Tensor();
      const Tensor tbias = f.has_tangent(2) ? f.tangent(2) : Tensor();
      return {layer_norm_tangent(f.input(0), f.tangent_or_zeros(0), has_weight ? f.input(1) : Tensor(), tweight, tbias,
                                 k, eps)};
    });
    auto reference = [normalized_shape, eps, has_weight](const BackwardContext& ctx) -> TensorList {
      return layer_norm_reference_grads(ctx.saved("x"), ctx.grad(), has_weight ? ctx.saved("weight") : Tensor(),
                                        normalized_shape, {ctx.needs_grad(0), ctx.needs_grad(1), ctx.needs_grad(2)},
                                        eps);
    };
    rec.backward(reference, [N, C, has_weight](const BackwardContext& ctx) -> TensorList {
      const Tensor x = contiguous_or_copy(ctx.saved("x"));
      const Tensor& g = ctx.grad();
      auto grad_for = [&](int input) {
        return ctx.needs_grad(input) ? empty(ctx.input_shape(input), ctx.input_dtype(input), x.device()) : Tensor();
      };
      // On the CPU dx is added into x's gradient gathered so far, where the backward pass offers it.
      const Tensor gathered = ctx.needs_grad(0) && !x.is_cuda() ? ctx.add_into_gathered(0) : Tensor();
      Tensor dx = gathered.defined() ? gathered : grad_for(0), dweight = grad_for(1), dbias = grad_for(2);
      const Tensor &mean = ctx.saved("mean"), &rstd = ctx.saved("rstd");
      const Tensor w = has_weight ? contiguous_or_copy(ctx.saved("weight")) : Tensor(), gc = contiguous_or_copy(g);
      if (x.is_cuda())
        TG_CUDA_ONLY(layer_norm_backward_cuda(dx, dweight, dbias, mean, rstd, gc, x, w, N, C));
      else
        layer_norm_backward_cpu(dx, dweight, dbias, mean, rstd, gc, x, w, N, C, gathered.defined());
      return {dx, dweight, dbias};
    });
  }
  return out;
}

}  // namespace tg
