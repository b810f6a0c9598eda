#include "core/cuda/cuda_check.h"
#include "core/cuda/strided_cuda.cuh"
#include "core/dispatch.h"
#include "ops/masked_fill/masked_fill.h"

namespace tg {

namespace {

// out[i] = mask ? fill : x (= writes), one thread per output element.
template <class T>
__global__ void masked_fill_kernel(T* out, const T* x, StridedDesc x_desc, const bool* mask, StridedDesc mask_desc,
                                   T fill, int64_t n) {
  TG_GRID_STRIDE_LOOP(i, n) out[i] = mask[mask_desc.at(i)] ? fill : x[x_desc.at(i)];
}

}  // namespace

void masked_fill_forward_cuda(const Tensor& out, const Tensor& x, const Tensor& mask, double value) {
  // out, x (shape); mask (shape or broadcastable to it)
  const int64_t n = out.numel();
  if (n == 0) return;
  const StridedDesc mask_desc(out.shape(), broadcast_strides(mask.shape(), mask.strides(), out.shape()), 0);
  dispatch_floating(out.dtype(), "masked_fill", [&](auto zero) {
    using T = decltype(zero);
    masked_fill_kernel<<<blocks_for(n), kThreads>>>(out.data<T>(), x.data<T>(), StridedDesc(x), mask.data<bool>(),
                                                    mask_desc, static_cast<T>(value), n);
  });
  TG_CUDA_CHECK_LAUNCH("masked_fill");
}

}  // namespace tg
