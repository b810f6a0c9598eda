#include "ops/log_softmax/log_softmax.h"

#include "core/copy.h"
#include "core/cuda/cuda_only.h"
#include "core/grad_mode.h"
#include "ops/common/op_doc.h"
#include "ops/common/rowwise_op.h"
#include "ops/exp/exp.h"
#include "ops/max/max.h"
#include "ops/mul/mul.h"
#include "ops/sub/sub.h"
#include "ops/sum/sum.h"

namespace tg {

namespace {

// 1 on the rows of out that hold a finite value, 0 on fully masked rows (all -inf), with dim
// kept as size 1: a constant. A live row's largest out is at least -log(n), so its exp is
// nonzero; a masked row's is exp(-inf) = 0.
Tensor live_rows(const Tensor& out, int64_t dim) {
  NoGradGuard no_grad;
  return to_dtype_copy(to_dtype_copy(exp(max(out, dim, true)), kBool), out.dtype());
}

// With softmax = exp(out): dx = grad - softmax * sum(grad), 0 on fully masked rows.
Tensor log_softmax_backward(const Tensor& out, const Tensor& grad, int64_t dim) {
  return sub(mul(grad, live_rows(out, dim)), mul(exp(out), sum(grad, {dim}, true)));
}

// tangent_out = tangent_x - sum(softmax * tangent_x), 0 on fully masked rows.
Tensor log_softmax_forward(const Tensor& out, const Tensor& tangent, int64_t dim) {
  return sub(mul(tangent, live_rows(out, dim)), sum(mul(exp(out), tangent), {dim}, true));
}

}  // namespace

TG_OP_DOC(log_softmax) {
  return {.summary = "the log of softmax along one dim",
          .forward_text = "out_j = x_j - m - log sum_k e^(x_k - m), m = max_k x_k",
          .forward_tex = R"(\mathrm{out}_j = x_j - m - \log \sum_k e^{x_k - m},\quad m = \max_k x_k)",
          .backward = {{"x",
                        "dL/dx_i = dL/dout_i - e^(out_i) * sum_k dL/dout_k",
                        R"(\dLd{x_i} = \dLd{\mathrm{out}_i} - e^{\mathrm{out}_i} \sum_k )"
                        R"(\dLd{\mathrm{out}_k})"}}};
}

Tensor log_softmax(const Tensor& x, int64_t dim) {
  return rowwise_op("log_softmax", x, dim, {log_softmax_backward, log_softmax_forward},
                    {log_softmax_forward_cpu, log_softmax_backward_cpu},
                    {TG_CUDA_KERNEL(log_softmax_forward_cuda), TG_CUDA_KERNEL(log_softmax_backward_cuda)});
}

}  // namespace tg
