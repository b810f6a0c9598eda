#pragma once
// The host side of the one-block-per-row kernels (block_reduce_cuda.cuh) of softmax and
// log_softmax: contiguous (outer, dim_size, inner) tensors (ops/common/dim_rows.h), rows = outer * inner.
#include <cstdint>

#include "core/cuda/cuda_check.h"
#include "core/dispatch.h"
#include "core/tensor.h"
#include "ops/common/block_reduce_cuda.cuh"

namespace tg {

// Launches kernel_for(T{}), the kernel instantiated for `dtype`, as
//   kernel<<<row_blocks(rows), kThreads>>>(tensors.data<T>()..., rows, dim_size, inner)
// and checks the launch; nothing to do when there are no rows or the rows are empty.
//   launch_per_row("softmax", inp.dtype(), [](auto zero) { return softmax_forward_kernel<decltype(zero)>; },
//                  outer, dim_size, inner, out, inp);
template <class KernelFor, class... Tensors>
void launch_per_row(const char* op, DType dtype, KernelFor kernel_for, int64_t outer, int64_t dim_size,
                    int64_t inner, const Tensors&... tensors) {
  const int64_t rows = outer * inner;
  if (rows == 0 || dim_size == 0) return;
  dispatch_floating(dtype, op, [&](auto zero) {
    using T = decltype(zero);
    kernel_for(zero)<<<row_blocks(rows), kThreads>>>(tensors.template data<T>()..., rows, dim_size, inner);
  });
  TG_CUDA_CHECK_LAUNCH(op);
}

}  // namespace tg
