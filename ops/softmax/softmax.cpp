#include "ops/softmax/softmax.h"

#include "core/cuda/cuda_only.h"
#include "ops/common/rowwise_op.h"

namespace tg {

Tensor softmax(const Tensor& x, int64_t dim) {
  return rowwise_op("softmax", x, dim, {softmax_forward_cpu, softmax_backward_cpu},
                    {TG_CUDA_KERNEL(softmax_forward_cuda), TG_CUDA_KERNEL(softmax_backward_cuda)});
}

}  // namespace tg
