#include "ops/sqrt/sqrt.h"

#include "core/cuda/cuda_only.h"
#include "ops/common/elementwise.h"

namespace tg {

Tensor sqrt(const Tensor& x) {
  return unary_op(x, "sqrt", UnarySaves::out, {sqrt_forward_cpu, sqrt_backward_cpu},
                  {TG_CUDA_KERNEL(sqrt_forward_cuda), TG_CUDA_KERNEL(sqrt_backward_cuda)});
}

}  // namespace tg
