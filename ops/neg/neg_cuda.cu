#include "ops/common/elementwise_cuda.cuh"
#include "ops/neg/neg.h"

namespace tg {

void neg_forward_cuda(const Tensor& out, const Tensor& x) {
  unary_kernel_cuda(out, x, "neg", [] __device__(auto v) { return -v; });
}

}  // namespace tg
