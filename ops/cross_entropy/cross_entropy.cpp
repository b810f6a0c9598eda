#include "ops/cross_entropy/cross_entropy.h"

#include <fmt/format.h>

#include "core/copy.h"
#include "core/cuda/cuda_only.h"
#include "core/factories.h"
#include "core/grad_mode.h"
#include "core/tape.h"
#include "ops/add/add.h"
#include "ops/common/contiguous_input.h"
#include "ops/common/index_check.h"
#include "ops/common/one_hot.h"
#include "ops/common/op_doc.h"
#include "ops/mul/mul.h"
#include "ops/softmax/softmax.h"
#include "ops/sub/sub.h"
#include "ops/sum/sum.h"
#include "ops/unsqueeze/unsqueeze.h"

namespace tg {

namespace {

// Checks the arguments; returns the number of non-ignored targets.
int64_t check_args(const Tensor& logits, const Tensor& target, const CrossEntropyOptions& opts) {
  check_floating(logits, "cross_entropy", "logits");
  if (logits.dim() == 0 || logits.size(-1) == 0)
    throw Error("cross_entropy", fmt::format("logits must have a class dim (last) of size >= 1, got {}",
                                             shape_str(logits.shape())));
  check_defined(target, "cross_entropy", "target");
  check_same_device(logits, target, "cross_entropy");
  const Shape rows(logits.shape().begin(), logits.shape().end() - 1);
  if (target.shape() != rows)
    throw Error("cross_entropy", fmt::format("target {} must have logits' shape without the class dim: logits {} "
                                             "-> target {} (the class dim is last)", shape_str(target.shape()),
                                             shape_str(logits.shape()), shape_str(rows)));
  if (!(opts.label_smoothing >= 0 && opts.label_smoothing <= 1))
    throw Error("cross_entropy", fmt::format("label_smoothing must be in [0, 1], got {}", opts.label_smoothing));
  const int64_t C = logits.size(-1);
  return check_indices(target, C, "cross_entropy", "target",
                       fmt::format("[0, {}) for logits {} and is not ignore_index {}", C,
                                   shape_str(logits.shape()), opts.ignore_index),
                       opts.ignore_index);
}

// d loss[n] / d logits[n] = softmax(logits[n]) - q[n] on the rows not ignored, 0 on ignored
// rows: (..., C), written with tapegrad ops on the logits, for the reference rules. The target
// distribution q and the mask of rows not ignored are constants.
Tensor dloss_dlogits(const Tensor& logits, const Tensor& target, const CrossEntropyOptions& opts) {
  const int64_t C = logits.size(-1);
  Tensor q, counted;  // q (..., C), counted (..., 1): 1 on rows not ignored, else 0
  {
    NoGradGuard no_grad;
    const Tensor hot = one_hot(target, C, logits.dtype(), opts.ignore_index);
    counted = sum(hot, {-1}, true);
    q = add(mul(hot, 1 - opts.label_smoothing), mul(counted, opts.label_smoothing / static_cast<double>(C)));
  }
  return sub(mul(softmax(logits, -1), counted), q);
}

}  // namespace

TG_OP_DOC(cross_entropy) {
  return {.summary = "mean negative log-likelihood of the targets under softmax(logits)",
          .forward_text = "loss[n] = log sum_c e^x[n,c] - (1 - eps) x[n,t_n] - (eps / C) sum_c x[n,c], "
                          "then mean over the targets not ignored, sum or none",
          .forward_tex = R"(\ell_n = \log \sum_c e^{x_{nc}} - (1 - \varepsilon)\, x_{n t_n} - )"
                         R"(\tfrac{\varepsilon}{C} \sum_c x_{nc})",
          .backward = {{"logits",
                        "dL/dlogits[n,c] = g[n] * (softmax(x[n])_c - q[n,c]), q[n,c] = (1 - eps) [c == t_n] "
                        "+ eps / C, g = dL/dout / count (mean), dL/dout (sum), dL/dout[n] (none); 0 on ignored "
                        "rows",
                        R"(\dLd{x_{nc}} = g_n \left(\operatorname{softmax}(x_n)_c - q_{nc}\right),\quad )"
                        R"(q_{nc} = (1 - \varepsilon)[c = t_n] + \tfrac{\varepsilon}{C})"}}};
}

Tensor cross_entropy(const Tensor& logits, const Tensor& target, CrossEntropyOptions opts) {
  const int64_t count = check_args(logits, target, opts);
  const Tensor x = contiguous_or_copy(logits);
  const Tensor t = contiguous_or_copy(target);
  Tensor loss = empty(target.shape(), logits.dtype(), logits.device());
  Tensor lse = empty(target.shape(), logits.dtype(), logits.device());
  if (x.is_cuda())
    TG_CUDA_ONLY(cross_entropy_forward_cuda(loss, lse, x, t, opts.ignore_index, opts.label_smoothing));
  else
    cross_entropy_forward_cpu(loss, lse, x, t, opts.ignore_index, opts.label_smoothing);

  // scale turns the sum of the row losses into the output: 1 for sum, 1/count for mean.
  const double scale = opts.reduction == Reduction::mean ? (count > 0 ? 1.0 / static_cast<double>(count) : 0.0) : 1.0;
  Tensor out = loss;
  if (opts.reduction != Reduction::none)  // loss needs no grad, so sum records nothing; summed on the host
    out = full({}, sum(to_device_copy(loss, kCPU)).item() * scale, logits.dtype(), logits.device());

  if (Recorder rec("cross_entropy", {logits, target}, {out}); rec) {
    rec.attr("reduction", reduction_name(opts.reduction))
        .attr("ignore_index", opts.ignore_index)
        .attr("label_smoothing", opts.label_smoothing);
    // logits itself (not a contiguous copy): a backward that creates a graph differentiates through it.
    rec.save("logits", logits).save("target", t).save("lse", lse);
    // each row's loss moves by sum_c dloss_dlogits[n, c] * tangent[n, c]; out's tangent reduces those as out does
    rec.forward([&](const ForwardContext& f) -> TensorList {
      const Tensor loss_tangent = sum(mul(dloss_dlogits(f.input(0), t, opts), f.tangent(0)), {-1});
      if (opts.reduction == Reduction::none) return {loss_tangent};
      return {mul(sum(loss_tangent), scale)};
    });
    auto reference = [opts, scale](const BackwardContext& ctx) -> TensorList {
      // grad () or (...) -> the gradient of each row's loss, broadcasting over the classes
      const Tensor row_grad = opts.reduction == Reduction::none ? unsqueeze(ctx.grad(), -1) : mul(ctx.grad(), scale);
      return {mul(row_grad, dloss_dlogits(ctx.saved("logits"), ctx.saved("target"), opts)), Tensor()};
    };
    rec.backward(reference, [opts, scale](const BackwardContext& ctx) -> TensorList {
      const Tensor& grad = ctx.grad();  // () or (...), possibly an expanded view
      Tensor dlogits = empty(ctx.input_shape(0), ctx.input_dtype(0), grad.device());
      const Tensor dloss = contiguous_or_copy(grad);
      const Tensor &lse = ctx.saved("lse"), &t = ctx.saved("target");
      const Tensor x = contiguous_or_copy(ctx.saved("logits"));
      if (grad.is_cuda())
        TG_CUDA_ONLY(cross_entropy_backward_cuda(dlogits, dloss, lse, x, t, scale, opts.ignore_index,
                                                 opts.label_smoothing));
      else
        cross_entropy_backward_cpu(dlogits, dloss, lse, x, t, scale, opts.ignore_index, opts.label_smoothing);
      return {dlogits, Tensor()};
    });
  }
  return out;
}

}  // namespace tg
