#include "ops/softmax/softmax.h"

#include "core/cuda/cuda_only.h"
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

Tensor softmax(const Tensor& x, int64_t dim) {
  return rowwise_op("softmax", x, dim, {softmax_jacobian_product, softmax_jacobian_product},
                    {softmax_forward_cpu, softmax_backward_cpu},
                    {TG_CUDA_KERNEL(softmax_forward_cuda), TG_CUDA_KERNEL(softmax_backward_cuda)});
}

}  // namespace tg
