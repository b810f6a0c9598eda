#include "ops/sigmoid/sigmoid.h"

#include "core/cuda/cuda_only.h"
#include "ops/common/elementwise.h"

namespace tg {

Tensor sigmoid(const Tensor& x) {
  return unary_op(x, "sigmoid", UnarySaves::out, {sigmoid_forward_cpu, sigmoid_backward_cpu},
                  {TG_CUDA_KERNEL(sigmoid_forward_cuda), TG_CUDA_KERNEL(sigmoid_backward_cuda)});
}

}  // namespace tg
