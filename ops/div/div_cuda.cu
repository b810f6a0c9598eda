#include "ops/common/elementwise_cuda.cuh"
#include "ops/div/div.h"

namespace tg {

void div_forward_cuda(const Tensor& out, const Tensor& a, const Tensor& b) {
  binary_kernel_cuda(out, a, b, "div", [] __device__(auto x, auto y) { return x / y; });
}

}  // namespace tg
