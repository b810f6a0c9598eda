#include "ops/softmax/softmax.h"

#include "core/cuda/cuda_only.h"
#include "ops/common/op_doc.h"
#include "ops/common/rowwise_op.h"
#include "ops/mul/mul.h"
#include "ops/sub/sub.h"
#include "ops/sum/sum.h"

namespace tg {

namespace {
// The Jacobian dy_k/dx_i = y_k (delta_ki - y_i) is symmetric, so one product serves both modes:
// dx = y * (grad - sum(grad * y)) and tangent_y = y * (tangent_x - sum(tangent_x * y)).
// A fully masked row (y = 0) gives 0, as the kernels.
Tensor softmax_jacobian_product(const Tensor& y, const Tensor& v, int64_t dim) {
  return mul(y, sub(v, sum(mul(v, y), {dim}, true)));
}
}  // namespace

TG_OP_DOC(softmax) {
  return {.summary = "exponentials normalised to sum to 1 along one dim",
          .forward_text = "out_j = e^(x_j - m) / sum_k e^(x_k - m), m = max_k x_k",
          .forward_tex = R"(\mathrm{out}_j = \frac{e^{x_j - m}}{\sum_k e^{x_k - m}},\quad m = \max_k x_k)",
          .backward = {{"x",
                        "dL/dx_i = out_i * (dL/dout_i - sum_k dL/dout_k out_k)",
                        R"(\dLd{x_i} = \mathrm{out}_i \left(\dLd{\mathrm{out}_i} - \sum_k )"
                        R"(\dLd{\mathrm{out}_k}\, \mathrm{out}_k\right))"}}};
}

Tensor softmax(const Tensor& x, int64_t dim) {
  return rowwise_op("softmax", x, dim, {softmax_jacobian_product, softmax_jacobian_product},
                    {softmax_forward_cpu, softmax_backward_cpu},
                    {TG_CUDA_KERNEL(softmax_forward_cuda), TG_CUDA_KERNEL(softmax_backward_cuda)});
}

}  // namespace tg
