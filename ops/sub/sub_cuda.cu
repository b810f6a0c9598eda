#include "ops/common/elementwise_cuda.cuh"
#include "ops/sub/sub.h"

namespace tg {

void sub_forward_cuda(const Tensor& out, const Tensor& a, const Tensor& b) {
  binary_kernel_cuda(out, a, b, "sub", [] __device__(auto x, auto y) { return x - y; });
}

}  // namespace tg
