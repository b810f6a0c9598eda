#include "ops/tanh/tanh.h"

#include "core/cuda/cuda_only.h"
#include "ops/common/elementwise.h"

namespace tg {

Tensor tanh(const Tensor& x) {
  return unary_op(x, "tanh", UnarySaves::out, {tanh_forward_cpu, tanh_backward_cpu},
                  {TG_CUDA_KERNEL(tanh_forward_cuda), TG_CUDA_KERNEL(tanh_backward_cuda)});
}

}  // namespace tg
