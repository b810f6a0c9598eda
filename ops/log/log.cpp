#include "ops/log/log.h"

#include "core/cuda/cuda_only.h"
#include "ops/common/elementwise.h"

namespace tg {

Tensor log(const Tensor& x) {
  return unary_op(x, "log", UnarySaves::x, {log_forward_cpu, log_backward_cpu},
                  {TG_CUDA_KERNEL(log_forward_cuda), TG_CUDA_KERNEL(log_backward_cuda)});
}

}  // namespace tg
