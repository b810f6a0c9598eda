#include "ops/common/elementwise_cpu.h"
#include "ops/mean/mean.h"
#include "ops/sum/sum.h"

namespace tg {

void mean_forward_cpu(const Tensor& out, const Tensor& x, int64_t count) {
  // x (d0..dn-1) any strides; out (keepdim shape) contiguous.
  sum_forward_cpu(out, x);  // out = sum (double accumulation)
  // out = out / count; count 0 (an empty reduction) gives 0/0 = NaN
  unary_kernel_cpu(out, out, "mean", [count](auto s) { return s / static_cast<decltype(s)>(count); });
}

void mean_backward_cpu(const Tensor& dx_keep, const Tensor& grad, int64_t count) {
  // grad, dx_keep (keepdim shape); the op expands dx_keep to x's shape
  unary_kernel_cpu(dx_keep, grad, "mean", [count](auto g) { return g / static_cast<decltype(g)>(count); });
}

}  // namespace tg
