#include "ops/exp/exp.h"

#include "core/cuda/cuda_only.h"
#include "ops/common/elementwise.h"

namespace tg {

Tensor exp(const Tensor& x) {
  return unary_op(x, "exp", UnarySaves::out, {exp_forward_cpu, exp_backward_cpu},
                  {TG_CUDA_KERNEL(exp_forward_cuda), TG_CUDA_KERNEL(exp_backward_cuda)});
}

}  // namespace tg
