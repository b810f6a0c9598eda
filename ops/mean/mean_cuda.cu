#include "ops/common/elementwise_cuda.cuh"
#include "ops/mean/mean.h"
#include "ops/sum/sum.h"

namespace tg {

void mean_forward_cuda(const Tensor& out, const Tensor& x, int64_t count) {
  // x (d0..dn-1) any strides; out (keepdim shape) contiguous.
  sum_forward_cuda(out, x);  // out = sum (double accumulation)
  // out = out / count; count 0 (an empty reduction) gives 0/0 = NaN
  unary_kernel_cuda(out, out, "mean",
                    [count] __device__(auto s) { return s / static_cast<decltype(s)>(count); });
}

void mean_backward_cuda(const Tensor& dx_keep, const Tensor& grad, int64_t count) {
  // grad, dx_keep (keepdim shape); the op expands dx_keep to x's shape
  unary_kernel_cuda(dx_keep, grad, "mean",
                    [count] __device__(auto g) { return g / static_cast<decltype(g)>(count); });
}

}  // namespace tg
