#include "ops/relu/relu.h"

#include "core/cuda/cuda_only.h"
#include "ops/common/elementwise.h"

namespace tg {

Tensor relu(const Tensor& x) {
  return unary_op(x, "relu", UnarySaves::x, {relu_forward_cpu, relu_backward_cpu},
                  {TG_CUDA_KERNEL(relu_forward_cuda), TG_CUDA_KERNEL(relu_backward_cuda)});
}

}  // namespace tg
