#include "ops/log_softmax/log_softmax.h"

#include "core/cuda/cuda_only.h"
#include "ops/common/rowwise_op.h"

namespace tg {

Tensor log_softmax(const Tensor& x, int64_t dim) {
  return rowwise_op("log_softmax", x, dim, {log_softmax_forward_cpu, log_softmax_backward_cpu},
                    {TG_CUDA_KERNEL(log_softmax_forward_cuda), TG_CUDA_KERNEL(log_softmax_backward_cuda)});
}

}  // namespace tg
